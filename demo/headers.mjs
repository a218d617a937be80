// The demo's response headers and generated routes, shared by demo/serve.mjs and the demo's
// browser tests: /demo/ is served with the headers that unlock everything (the js-profiling
// document policy, COOP/COEP for cross-origin isolation); /demo/plain/ is the same page without
// them, so the fallbacks can be seen.
import { readFileSync } from 'node:fs';
import { instrument } from '../glue/instrument/transform.js';

export const UNLOCKED = Object.freeze({
  'Document-Policy': 'js-profiling',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
});

/** Extra headers for a path: none under /demo/plain/, the unlocking ones elsewhere. */
export function demoHeaders(path) {
  return path.startsWith('/demo/plain') ? {} : UNLOCKED;
}

/** Generated routes: / redirects to /demo/; /demo/plain/ serves index.html with a <base> so
 *  its relative URLs resolve under /demo/; /demo/workloads.instrumented.js is workloads.js
 *  through perfshim's instrumentation transform. */
export function demoRoutes({ fieldCollector } = {}) {
  const page = readFileSync(new URL('./index.html', import.meta.url), 'utf8').replace(
    '<head>',
    '<head>\n<base href="/demo/">',
  );
  // The workloads instrumented by perfshim's transform, for browsers without a native Profiler.
  const work = instrument(readFileSync(new URL('./workloads.js', import.meta.url), 'utf8'), {
    file: 'workloads.js',
    url: '/demo/workloads.js',
  }).code;
  return {
    '/demo/workloads.instrumented.js': { body: work, type: 'text/javascript; charset=utf-8' },
    '/': { body: '<!doctype html><meta http-equiv="refresh" content="0; url=/demo/">' },
    '/demo/plain/': { body: page, headers: {} },
    '/demo/plain/index.html': { body: page, headers: {} },
    // Where the Field panel sends its simulated visits (demo/field-server.mjs).
    '/demo/field.json': {
      body: JSON.stringify({ collector: fieldCollector || null }),
      type: 'application/json',
    },
  };
}
