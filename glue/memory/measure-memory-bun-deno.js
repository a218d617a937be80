// Bun's and Deno's Measure Memory sources, imported on their first measurement: only those
// runtimes need them (the neutral bundles leave them in dist/perfshim-bun-deno.mjs, the browser
// builds leave them out).
import { runtime } from '../host/host.js';

/** This runtime's source (measure-memory.js picks it in Bun and Deno). */
export const measureBunDeno = (core) =>
  runtime === 'bun'
    ? import('./measure-memory-bun.js').then((m) => m.measureBun(core))
    : import('./measure-memory-deno.js').then((m) => m.measureDeno(core));
