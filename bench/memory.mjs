// Measure Memory latency: Node (main thread alone, with 1 and 4 workers; the core's result
// building alone) and Chromium (native measurement with ForceEagerMeasureMemory, with an
// exposed gc(), and with default switches). Prints figures; asserts nothing.
//   node bench/memory.mjs [--no-browser] [--default-chromium]
import { Worker } from 'node:worker_threads';
import {
  measureUserAgentSpecificMemory,
  buildMeasurement,
  loadMemoryCore,
} from '../glue/memory/measure-memory.js';

const args = new Set(process.argv.slice(2));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
};
const fmt = (xs) =>
  `median ${median(xs).toFixed(1)} ms, min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)} (n=${xs.length})`;

async function timeRuns(n, fn) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

async function node() {
  console.log(`Node ${process.version}`);
  await measureUserAgentSpecificMemory(); // warm-up: inspector and core loaded
  console.log(`  main thread only: ${fmt(await timeRuns(15, measureUserAgentSpecificMemory))}`);
  const code =
    'globalThis.k = new Array(1e6).fill(0.5); require("worker_threads").parentPort.postMessage(1); setInterval(() => {}, 1e6);';
  const workers = [];
  for (const count of [1, 4]) {
    while (workers.length < count) {
      const w = new Worker(code, { eval: true });
      await new Promise((r) => w.once('message', r));
      workers.push(w);
    }
    console.log(
      `  with ${count} worker${count > 1 ? 's' : ' '}:   ${fmt(await timeRuns(15, measureUserAgentSpecificMemory))}`,
    );
  }
  await Promise.all(workers.map((w) => w.terminate()));
  const core = loadMemoryCore(); // (the result is built in the Measure Memory core)
  const realms = [{ url: 'file:///main.js', scope: 'NodeMainThread' }];
  const entries = [];
  for (let i = 0; i < 40; i++)
    entries.push({ bytes: 1000 + i, realms: [0], types: ['JavaScript', `space${i}`] });
  const perBuild = (input) => {
    const t0 = performance.now();
    const n = 2000;
    for (let i = 0; i < n; i++) buildMeasurement(core, input, i);
    return `${(((performance.now() - t0) / n) * 1000).toFixed(1)} µs`;
  };
  console.log(
    `  core result building (40 entries, JSON in and out): ${perBuild({ realms, entries })}`,
  );
  // A native result as Chromium's (the browser source hands it to the core as it is).
  const attribution = [{ url: 'https://h/p.html', scope: 'Window' }];
  const breakdown = entries.map((e, i) => ({ bytes: e.bytes, attribution, types: [`T${i}`] }));
  console.log(
    `  core result building from a native result (40 entries): ${perBuild({ native: { bytes: 1e6, breakdown } })}`,
  );
}

async function chromium() {
  const { serve, launch, openPage } = await import('../test/browser/harness.js');
  const iso = {
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
  };
  const server = await serve({
    headers: (p) => (p.startsWith('/bench/plain') ? {} : iso),
    routes: {
      '/bench/iso.html': {
        body: '<!doctype html><iframe src="/bench/frame.html"></iframe><script>new Worker("/bench/w.js")</script>',
      },
      '/bench/plain.html': { body: '<!doctype html><p>plain' },
      '/bench/alone.html': { body: '<!doctype html><p>isolated, no iframe, no worker' },
      '/bench/frame.html': { body: '<!doctype html><p>frame' },
      '/bench/w.js': { type: 'text/javascript', body: 'self.k = new Array(1e6).fill(0.5);' },
    },
  });
  const run = async (switches, path, n) => {
    const browser = await launch(switches);
    try {
      const { page } = await openPage(browser, `${server.url}${path}`);
      await page.waitForTimeout(300);
      return await page.evaluate(async (count) => {
        const { measureUserAgentSpecificMemory } = await import('/glue/memory/measure-memory.js');
        const out = [];
        for (let i = 0; i < count; i++) {
          const t0 = performance.now();
          await measureUserAgentSpecificMemory();
          out.push(performance.now() - t0);
        }
        return out;
      }, n);
    } finally {
      await browser.close();
    }
  };
  console.log(
    'Chromium (isolated page with an iframe and a worker; our glue over the native call)',
  );
  console.log(
    `  ForceEagerMeasureMemory:        ${fmt(await run(['--enable-blink-features=ForceEagerMeasureMemory'], '/bench/iso.html', 10))}`,
  );
  console.log(
    `  page exposes gc(), no worker:   ${fmt(await run(['--js-flags=--expose-gc'], '/bench/alone.html', 5))}`,
  );
  console.log(
    `  page exposes gc(), a worker:    ${fmt(await run(['--js-flags=--expose-gc'], '/bench/iso.html', 3))}`,
  );
  if (args.has('--default-chromium')) {
    console.log(`  default switches:               ${fmt(await run([], '/bench/iso.html', 1))}`);
  } else {
    console.log(
      '  default switches:               skipped (waits for a scheduled GC, ~15 s; pass --default-chromium)',
    );
  }
  console.log(`  not isolated (fallback):        ${fmt(await run([], '/bench/plain.html', 20))}`);
  await server.close();
}

await node();
if (!args.has('--no-browser')) await chromium();
process.exit(0);
