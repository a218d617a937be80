// Runs one WPT .any.js file (test/wpt/fixtures) in this Node process with WPT's testharness.js
// and prints one JSON line: { file, results: [{ name, status, message }], harness }.
// Usage: node run-file.mjs <mode> <file relative to fixtures/>, where mode is
//   node  — the runtime's own performance, untouched (the reference; Node's, Bun's or Deno's);
//   auto  — the runtime's own performance with perfshim/auto installed over it;
//   plain — globalThis.performance is a plain `{ now() }` object, then perfshim/auto installs.
// Runs under Bun (`bun run-file.mjs ...`) and Deno (`deno run -A run-file.mjs ...`) too.
// Not a WPT file: perfshim's small runner (WPT's own runner is Python and a browser).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, 'fixtures');
const [mode, file] = process.argv.slice(2);
const TIMEOUT_MS = 20_000; // a test that never completes is reported as not passed

if (mode === 'plain') {
  const start = process.hrtime.bigint();
  const host = { now: () => Number(process.hrtime.bigint() - start) / 1e6 };
  Object.defineProperty(globalThis, 'performance', {
    value: host,
    writable: true,
    configurable: true,
  });
  await import(pathToFileURL(join(here, '../../glue/auto.js')).href);
  // The core is instantiated on first use (20-30 ms here), which mark.any.js's 20 ms window for
  // its first mark would count against the clock; an app's earlier calls would have paid it.
  performance.getEntriesByType('mark');
} else if (mode === 'auto') {
  await import(pathToFileURL(join(here, '../../glue/auto.js')).href);
  performance.getEntriesByType('mark'); // (the core's first use, as in plain)
} else if (mode !== 'node') {
  throw new TypeError(`unknown mode '${mode}' (expected 'node', 'auto' or 'plain')`);
}

// What a WPT global offers the tests: `self`, and fetch() of the harness's own files (the IDL).
globalThis.self = globalThis;
// (Deno's global has a `location` that is undefined without --location: testharness.js would
// read its pathname.)
if ('location' in globalThis && globalThis.location === undefined) delete globalThis.location;
globalThis.fetch = async (url) => {
  const text = readFileSync(join(root, String(url).replace(/^\//, '')), 'utf8');
  return { ok: true, text: async () => text };
};

const run = (path) => vm.runInThisContext(readFileSync(path, 'utf8'), { filename: path });
run(join(root, 'resources/testharness.js'));
// idlharness asks which global it runs in; the .any.js files run as window and worker, and a
// Node global is the nearer of the two to a worker (no document).
globalThis.DedicatedWorkerGlobalScope = function DedicatedWorkerGlobalScope() {};
Object.defineProperty(globalThis.DedicatedWorkerGlobalScope, Symbol.hasInstance, {
  value: (o) => o === globalThis,
});

const results = [];
const timer = setTimeout(() => report('timeout'), TIMEOUT_MS);
function report(harness) {
  clearTimeout(timer);
  console.log(JSON.stringify({ file, mode, harness, results }));
  process.exit(0);
}
globalThis.add_result_callback((t) => {
  results.push({ name: t.name, status: t.status, message: t.message });
});
globalThis.add_completion_callback((_tests, status) => report(status.status));

const testPath = join(root, file);
for (const [, src] of readFileSync(testPath, 'utf8').matchAll(/^\/\/ META: script=(.+)$/gm)) {
  run(src.startsWith('/') ? join(root, src) : resolve(dirname(testPath), src));
}
run(testPath);
