// The Profiler of this runtime: the class (profiler-class.js) over the sample sources this host
// has, best first (profiler-node.js: V8 through node:inspector; profiler-bun-deno.js: Bun's and
// Deno's samplers; profiler-chromium.js: the native Profiler under the js-profiling document
// policy; instrument/source.js: code instrumented by perfshim's transform).
import { lazyCore, loadCore } from '../host/loader.js';
import { makeProfilerClass, sharedProfilerClass } from './profiler-class.js';
import { createTraceCodec } from './profiler-trace.js';
import { nodeSource } from './profiler-node.js';
import { asyncInspectorSource } from './profiler-bun-deno.js';
import { chromiumSource } from './profiler-chromium.js';
import { instrumentSource } from '../instrument/source.js';

/** The sample sources of this runtime, best first: the native Profiler where it is allowed, the
 *  engine's sampler through node:inspector in Node (synchronous) and in Bun and Deno (whose
 *  answers come later), then the instrumentation source when this context's code was
 *  instrumented. */
export function defaultSources() {
  const inspector = asyncInspectorSource || nodeSource;
  return [inspector, chromiumSource, instrumentSource].filter(Boolean);
}

/**
 * The Profiler class bound to a core (default: the realm's shared one) and a sample source
 * (default: this runtime's; null: none). Tests hand in another source to exercise the other
 * paths.
 */
export function createProfilerClass(core = loadCore(), { source = defaultSources() } = {}) {
  return makeProfilerClass(() => ({ core, codec: createTraceCodec(core), source }));
}

/** What the default Profiler class works with (makeProfilerClass's backend): the realm's
 *  shared core (`core`), its trace codec and this runtime's sources. */
export function defaultBackend(core = lazyCore(loadCore)) {
  return { core, codec: createTraceCodec(core), source: defaultSources() };
}

/** The Profiler class of this copy of perfshim (default sources), over `core` (default: the
 *  realm's shared core, instantiated on first use). The first call makes it and every later one
 *  returns it (sharedProfilerClass): index.js takes it for the realm, after the classic script's
 *  install may have made it before the rest of the entry was loaded (glue/classic.js). */
export function getProfiler(core = lazyCore(loadCore)) {
  return sharedProfilerClass(() => makeProfilerClass(() => defaultBackend(core)));
}
