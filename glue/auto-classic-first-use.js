// What dist/perfshim.auto.js compiles and runs on first use (glue/auto-classic.js): the entry,
// and what the Profiler class made at load works with (its core, trace codec and sources).
// The build embeds it as text; the modules it shares with the load part come from there.
export * as entry from './index.js';
export { defaultBackend } from './profiler/profiler.js';
