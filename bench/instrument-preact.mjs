// The CPU cost of instrumenting a framework (`dependencies: ['preact']`, issue 23/25): a Preact
// list of 3,000 keyed rows rendered, reordered and re-rendered in a page, bundled by esbuild
// plain and with Preact instrumented, timed side by side in one page (rounds alternate, median
// of the rounds' ratios): instrumented with no profiler, and while perfshim's Profiler samples
// through the instrumentation source (1 ms; Chromium without the js-profiling policy and
// Firefox: the log sampler). Wall ms. The no-profiler cost is measured in a page of its own, as
// an unprofiled visitor runs the bundle: no perfshim glue loaded and no session ever started
// (in the profiled page the JITs keep code compiled while the switch was on, and perfshim's
// warm-up of the probes changes what V8 makes of them), alone and beside a second instrumented
// bundle (returns that called the probes' `r` cost Chromium 1.15x there, 1.03x alone).
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
const plain = await bundle([]);
const instrumented = await bundle([esbuildPlugin({ dependencies: ['preact'] })]);
// Two pages: an unprofiled visitor's (the bundles alone: no perfshim glue, whose warm-up of the
// probes changes what the JIT makes of them), and a profiled one's, which imports the Profiler.
const page = (
  profiled,
) => `<!doctype html><div id=plain></div><div id=inst></div><script type=module>
${profiled ? "import { getProfiler } from '/glue/profiler/profiler.js';" : ''}
import * as plain from '/p/plain.mjs';
import * as inst from '/p/inst.mjs';
const run = (m, root) => { const t0 = performance.now(); for (let s = 0; s < 20; s++) m.frame(root, 3000, s * 7); return performance.now() - t0; };
window.round = async (k) => {
  if (k === 'plain') return run(plain, document.getElementById('plain'));
  if (k !== 'log') return run(inst, document.getElementById('inst'));
  const p = new (getProfiler())({ sampleInterval: 1, maxBufferSize: 1e6 });
  const ms = run(inst, document.getElementById('inst'));
  await p.stop();
  return ms;
};
window.ready = true;
</script>`;
const routes = {
  '/p/plain.mjs': js(plain),
  '/p/inst.mjs': js(instrumented),
  '/p/other.mjs': js(`${instrumented}\n// another bundle`),
  '/p/unprofiled.html': { body: page(false, false) },
  '/p/two-bundles.html': { body: page(false, true) },
  '/p/profiled.html': { body: page(true, false) },
};
const { launchEngine, serve } = await import('../test/browser/harness.js');
const srv = await serve({ routes });
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(
  `\n### Preact instrumented (dependencies: ['preact']): 20 renders of 3,000 keyed rows, wall ms, median of ${ROUNDS} rounds (load average ${loadavg()[0].toFixed(1)})\n`,
);
console.log(
  `| engine | plain | Preact instrumented, no profiler (an unprofiled page) | the same beside another instrumented bundle | no profiler, in a profiled page after its sessions | profiling (1 ms) |\n|---|---|---|---|---|---|`,
);
/** Rounds of `keys` on a fresh page at `path`, alternating order: {key: [ms]}. */
async function rounds(b, path, keys) {
  const tab = await b.newPage();
  await tab.goto(`${srv.url}${path}`);
  await tab.waitFor(() => window.ready === true);
  const t = Object.fromEntries(keys.map((k) => [k, []]));
  for (let r = -3; r < ROUNDS; r++)
    for (const k of r % 2 ? keys : [...keys].reverse()) {
      const ms = await tab.evaluate((key) => window.round(key), k);
      if (r >= 0) t[k].push(ms);
    }
  await tab.close();
  return t;
}
const cell = (t, k) =>
  `${median(t[k]).toFixed(1)}: ${median(t[k].map((v, i) => v / t.plain[i])).toFixed(2)}x`;
try {
  for (const engine of engines) {
    const b = await launchEngine(engine);
    try {
      const u = await rounds(b, '/p/unprofiled.html', ['plain', 'idle']);
      const two = await rounds(b, '/p/two-bundles.html', ['plain', 'idle']);
      const p = await rounds(b, '/p/profiled.html', ['plain', 'idle', 'log']);
      console.log(
        `| ${engine} ${b.version} | ${median(u.plain).toFixed(1)} | ${cell(u, 'idle')} | ${cell(two, 'idle')} | ${cell(p, 'idle')} | ${cell(p, 'log')} |`,
      );
    } finally {
      await b.close();
    }
  }
} finally {
  await srv.close();
}
