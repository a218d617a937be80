// The CPU cost of instrumenting a framework (`dependencies: ['preact']`, issue 23/25): a Preact
// list of 3,000 keyed rows rendered, reordered and re-rendered in a page, bundled by esbuild
// plain and with Preact instrumented, timed side by side in one page (rounds alternate, median
// of the rounds' ratios): instrumented with no profiler, and while perfshim's Profiler samples
// through the instrumentation source (1 ms; Chromium without the js-profiling policy and
// Firefox: the log sampler). Wall ms.
//   node bench/instrument-preact.mjs [--rounds=N] [--engines=chromium,firefox,webkit]
import { build } from 'esbuild';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '../glue/instrument/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name) =>
  (process.argv.find((a) => a.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const ROUNDS = Number(arg('rounds')) || 30;
const engines = arg('engines') ? arg('engines').split(',') : ['chromium', 'firefox'];

const entry = `import { h, render } from 'preact';
export function frame(root, n, shift) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    const k = (i + shift) % n;
    rows.push(h('li', { key: k, class: k % 2 ? 'odd' : 'even' }, 'row ', k, h('b', null, k * 3)));
  }
  render(h('ul', null, rows), root);
}`;
const bundle = async (plugins) =>
  (
    await build({
      stdin: { contents: entry, resolveDir: ROOT, sourcefile: 'preact-list.js' },
      bundle: true,
      format: 'esm',
      minify: true,
      write: false,
      logLevel: 'silent',
      plugins,
    })
  ).outputFiles[0].text;
const js = (body) => ({ body, type: 'text/javascript' });
const routes = {
  '/p/plain.mjs': js(await bundle([])),
  '/p/inst.mjs': js(await bundle([esbuildPlugin({ dependencies: ['preact'] })])),
  '/p/index.html': {
    body: `<!doctype html><div id=a></div><div id=b></div><script type=module>
import { getProfiler } from '/glue/profiler/profiler.js';
import * as plain from '/p/plain.mjs';
import * as inst from '/p/inst.mjs';
const roots = { plain: document.getElementById('a'), inst: document.getElementById('b') };
const run = (m, root) => { const t0 = performance.now(); for (let s = 0; s < 20; s++) m.frame(root, 3000, s * 7); return performance.now() - t0; };
window.round = async (k) => {
  if (k === 'plain') return run(plain, roots.plain);
  if (k === 'idle') return run(inst, roots.inst);
  const p = new (getProfiler())({ sampleInterval: 1, maxBufferSize: 1e6 });
  const ms = run(inst, roots.inst);
  await p.stop();
  return ms;
};
window.ready = true;
</script>`,
  },
};
const { launchEngine, serve } = await import('../test/browser/harness.js');
const srv = await serve({ routes });
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(
  `\n### Preact instrumented (dependencies: ['preact']): 20 renders of 3,000 keyed rows, wall ms, median of ${ROUNDS} rounds (load average ${loadavg()[0].toFixed(1)})\n`,
);
console.log(
  `| engine | plain | Preact instrumented, no profiler | profiling (1 ms) |\n|---|---|---|---|`,
);
try {
  for (const engine of engines) {
    const b = await launchEngine(engine);
    try {
      const page = await b.newPage();
      await page.goto(`${srv.url}/p/index.html`);
      await page.waitFor(() => window.ready === true);
      const t = { plain: [], idle: [], log: [] };
      for (let r = -3; r < ROUNDS; r++) {
        const order = r % 2 ? ['plain', 'idle', 'log'] : ['log', 'idle', 'plain'];
        for (const k of order) {
          const ms = await page.evaluate((key) => window.round(key), k);
          if (r >= 0) t[k].push(ms);
        }
      }
      await page.close();
      const ratio = (k) => median(t[k].map((v, i) => v / t.plain[i])).toFixed(2);
      console.log(
        `| ${engine} ${b.version} | ${median(t.plain).toFixed(1)} | ${median(t.idle).toFixed(1)}: ${ratio('idle')}x | ${median(t.log).toFixed(1)}: ${ratio('log')}x |`,
      );
    } finally {
      await b.close();
    }
  }
} finally {
  await srv.close();
}
