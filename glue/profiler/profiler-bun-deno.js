// Bun's and Deno's Profiler source (profiler-inspector-async.js), loaded in those runtimes only,
// as this module evaluates: the other runtimes never load it (the neutral bundles leave it in
// dist/perfshim-bun-deno.mjs, the browser builds leave it out). Where `require` loads ES modules
// (Bun; CommonJS in Deno) it is loaded at once; else (Deno's ES modules) a profiler started
// before its import() settles starts sampling once it has (Deno starts a profile at a later task
// anyway).
import { runtime } from '../host/host.js';
import { supportedIntervalMs } from './profiler-node.js';

const own = (m) => m.asyncInspectorSource;
let loaded = null;
const loading =
  (runtime === 'bun' || runtime === 'deno') &&
  (() => {
    try {
      if (typeof require === 'function')
        return (loaded = own(require('./profiler-inspector-async.js')));
    } catch {}
    return import('./profiler-inspector-async.js').then((m) => (loaded = own(m)));
  })();

/** The source profiler.js picks in Bun and Deno (null elsewhere). */
export const asyncInspectorSource = loading && {
  name: 'inspector-async',
  supportedIntervalMs,
  start(...args) {
    if (loaded) return loaded.start(...args);
    const started = Promise.resolve(loading).then(() => loaded.start(...args));
    started.catch(() => {}); // stop() reports it
    return {
      intervalMs: args[2],
      stop: (until) => started.then((s) => s.stop(until)),
      close: () =>
        started.then(
          (s) => s.close(),
          () => {},
        ),
    };
  },
};
