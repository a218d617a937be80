// Instrumentation bench: a real npm library (marked, rendering a large Markdown document)
// bundled by esbuild twice, once plain and once through perfshim's bundler plugin, as a user
// would build it; the two are timed side by side in one run (order alternated). Targets:
// instrumented with no profiler running <= 1.10x the plain time; while a Profiler samples it
// through the instrumentation source <= 1.5x (both samplers); and attribution: of two
// functions where one does twice the work, the sample counts' ratio lies in 1.5–2.5.
// Two copies of the instrumented bundle are loaded: one is only ever run with no profiler, the
// other also under the profilers, so the cost of code compiled while a profiler was logging
// shows as its own row ("after a profiling session").
//   node bench/instrument.mjs [--quick] [--no-browser] [--engines=chromium,firefox,webkit]
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { esbuildPlugin } from '../glue/instrument/index.js';
import { instrument } from '../glue/instrument/transform.js';
import { createInstrumentSource } from '../glue/instrument/source.js';
import { createProfilerClass } from '../glue/profiler.js';
import { loadCore } from '../glue/loader.js';

const quick = process.argv.includes('--quick');
const browser = !process.argv.includes('--no-browser');
const ROUNDS = quick ? 10 : 30;
const dir = mkdtempSync(join(tmpdir(), 'perfshim-bench-instrument-'));
const entry = fileURLToPath(new URL('../node_modules/marked/lib/marked.esm.js', import.meta.url));

async function bundle(name, plugins, copy = '') {
  const outfile = join(dir, `${name}.mjs`);
  if (copy) return import(`${pathToFileURL(outfile).href}?${copy}`);
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    outfile,
    logLevel: 'silent',
    plugins,
  });
  return import(pathToFileURL(outfile).href);
}
const plain = await bundle('plain', []);
const instrumented = await bundle('instrumented', [
  esbuildPlugin({ include: /node_modules[\\/]marked/ }),
]);
const neverProfiled = await bundle('instrumented', [], 'never-profiled'); // a second instance

// A large document: every block and inline construct marked handles, repeated.
const section = (i) =>
  `# Heading ${i}\n\nSome *emphasis*, **strong**, \`code\`, a [link](https://example.com/${i}) and ` +
  `an ![image](i${i}.png).\n\n> A quote with _more_ text\n> over two lines.\n\n- item one\n- item **two**\n  - nested ${i}\n\n` +
  `1. first\n2. second\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | ${i * 2} |\n\n---\n\n`;
const doc = Array.from({ length: quick ? 300 : 1000 }, (_, i) => section(i)).join('');

// CPU time of the process (all threads: the shared sampler's worker counts against us), not
// wall time: on a shared machine a descheduled thread would add other programs' time to
// whichever variant happened to run then.
function time(fn) {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1];
};
// "vs plain": the median of each round's ratio to that round's plain time (rounds run every
// variant back to back, so a slow stretch of the machine weighs on both sides of a ratio).
const pairedRatio = (xs, plains) => median(xs.map((v, i) => v / plains[i]));

const core = loadCore();
const profilers = {
  log: createProfilerClass(core, { source: createInstrumentSource({ mode: 'log' }) }),
  shared: createProfilerClass(core, { source: createInstrumentSource({ mode: 'shared' }) }),
};
const out1 = plain.marked.parse(doc),
  out2 = instrumented.marked.parse(doc);
if (out1 !== out2) throw new Error('the instrumented library renders differently');
for (let i = 0; i < 3; i++) {
  plain.marked.parse(doc);
  neverProfiled.marked.parse(doc);
  instrumented.marked.parse(doc);
} // warm up

const t = { plain: [], idle: [], after: [], log: [], shared: [] };
const samples = { log: 0, shared: 0 };
for (let r = 0; r < ROUNDS; r++) {
  // every variant in every position and after every other one in turn (a variant's garbage is
  // collected during whichever runs next)
  const kinds = ['plain', 'idle', 'log', 'after', 'shared'];
  const order = kinds.map((_, i) => kinds[(i + r) % kinds.length]);
  if (r % 2) order.reverse();
  for (const k of order) {
    if (k === 'plain') t.plain.push(time(() => plain.marked.parse(doc)));
    else if (k === 'idle') t.idle.push(time(() => neverProfiled.marked.parse(doc)));
    else if (k === 'after') t.after.push(time(() => instrumented.marked.parse(doc)));
    else {
      const p = new profilers[k]({ sampleInterval: 1, maxBufferSize: 1e6 });
      t[k].push(time(() => instrumented.marked.parse(doc)));
      samples[k] += (await p.stop()).samples.length;
    }
  }
}
const base = median(t.plain);
const row = (name, k, target) => {
  const ms = median(t[k]);
  const ratio = pairedRatio(t[k], t.plain);
  return `| ${name} | ${ms.toFixed(1)} | ${ratio.toFixed(2)}x | ${target} | ${ratio <= parseFloat(target.slice(2)) ? 'ok' : 'MISSED'} |`;
};
console.log(
  `\n### Instrumentation overhead: marked rendering ${(doc.length / 1024).toFixed(0)} KB of Markdown (median CPU ms of ${ROUNDS}, ratio: median of the rounds' ratios; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs)\n`,
);
console.log('| build | ms | vs plain | target | |\n|---|---|---|---|---|');
console.log(`| plain (esbuild) | ${base.toFixed(1)} | 1.00x | | |`);
console.log(row('instrumented, no profiler', 'idle', '<=1.10'));
console.log(row('instrumented, no profiler, after a profiling session', 'after', '<=1.10'));
console.log(row('instrumented, profiling (log sampler, 1 ms)', 'log', '<=1.50'));
console.log(row('instrumented, profiling (shared-stack sampler, 1 ms)', 'shared', '<=1.50'));
console.log(`\nsamples taken: log ${samples.log}, shared ${samples.shared}`);

// Attribution: heavy does twice the work of light (the same loop, twice as many iterations, by
// count rather than by clock; each iteration costs the same, checked: CPU time ratio 2.00).
const workSrc = `
export function unit(n) { let s = 0; for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003; return s; }
export function light(n) { return unit(n); }
export function heavy(n) { return unit(2 * n); }
export function run(rounds, n) { let s = 0; for (let i = 0; i < rounds; i++) s += heavy(n) + light(n); return s; }`;
const work = await import(
  `data:text/javascript,${encodeURIComponent(instrument(workSrc, { file: 'attribution.js' }).code)}`
);
// Samples are wall-clock ticks (as the spec's are): on a loaded machine the time a thread is
// descheduled lands on whatever ran then, so the ratio is only meaningful with the machine to
// ourselves; the load average is printed with it.
console.log(
  `\n### Attribution: heavy() does twice the work of light() (load average ${loadavg()[0].toFixed(1)})\n`,
);
console.log(
  '| sampler | heavy samples | light samples | ratio | target | |\n|---|---|---|---|---|---|',
);
for (const k of ['log', 'shared']) {
  const p = new profilers[k]({ sampleInterval: 1, maxBufferSize: 1e6 });
  work.run(quick ? 100 : 300, 200000);
  const tr = await p.stop();
  const n = { heavy: 0, light: 0 };
  for (const s of tr.samples) {
    for (let id = s.stackId; id !== undefined; id = tr.stacks[id].parentId) {
      const name = tr.frames[tr.stacks[id].frameId].name;
      if (name in n) n[name]++;
    }
  }
  const ratio = n.heavy / n.light;
  console.log(
    `| ${k} | ${n.heavy} | ${n.light} | ${ratio.toFixed(2)} | 1.5–2.5 | ${ratio >= 1.5 && ratio <= 2.5 ? 'ok' : 'MISSED'} |`,
  );
}
// What one clock read costs in each engine (the log sampler's main cost before it stamped only
// some records): Date.now(), performance.now() and the bound call the shim uses, per call, in
// loops of 200,000, interleaved over 15 rounds, medians; the empty loop for reference.
function clockCosts() {
  const N = 200000;
  const bound = Function.prototype.call.bind(performance.now, performance);
  let sink = 0;
  const cases = {
    'empty loop': () => {
      for (let i = 0; i < N; i++) sink += i;
    },
    'Date.now()': () => {
      for (let i = 0; i < N; i++) sink += Date.now();
    },
    'performance.now()': () => {
      for (let i = 0; i < N; i++) sink += performance.now();
    },
    'bound performance.now': () => {
      for (let i = 0; i < N; i++) sink += bound();
    },
  };
  const t = {};
  for (const k in cases) t[k] = [];
  for (let r = 0; r < 15; r++)
    for (const k in cases) {
      const t0 = performance.now();
      cases[k]();
      t[k].push(performance.now() - t0);
    }
  const out = {};
  for (const k in t) out[k] = (t[k].sort((x, y) => x - y)[7] * 1e6) / N;
  out.sink = sink > 0;
  return out;
}
const clockRows = { node: clockCosts() };

// The same marked bundles in browsers (--engines=chromium,firefox,webkit; default chromium),
// Chromium without the js-profiling policy and none of them isolated: the case the log sampler
// is for. Wall time, medians, interleaved.
if (browser) {
  const { readFileSync } = await import('node:fs');
  const { launchEngine, serve } = await import('../test/browser/harness.js');
  const arg = process.argv.find((a) => a.startsWith('--engines='));
  const engines = arg ? arg.slice(10).split(',') : ['chromium'];
  const page = `<!doctype html><script type=module>
import { getProfiler } from '/glue/profiler.js';
import * as plain from '/b/plain.mjs';
import * as inst from '/b/instrumented.mjs';
import * as fresh from '/b/instrumented.mjs?never-profiled';
const doc = ${JSON.stringify(doc)};
const time = (f) => { const t0 = performance.now(); f(); return performance.now() - t0; };
window.round = async (k) => {
  if (k === 'plain') return time(() => plain.marked.parse(doc));
  if (k === 'idle') return time(() => fresh.marked.parse(doc));
  if (k === 'after') return time(() => inst.marked.parse(doc));
  const p = new (getProfiler())({ sampleInterval: 1, maxBufferSize: 1e6 });
  const ms = time(() => inst.marked.parse(doc));
  await p.stop();
  return ms;
};
window.clockCosts = ${clockCosts.toString()};
window.ready = true;
</script>`;
  const srv = await serve({
    routes: {
      '/b/index.html': { body: page },
      '/b/plain.mjs': { body: readFileSync(join(dir, 'plain.mjs')), type: 'text/javascript' },
      '/b/instrumented.mjs': {
        body: readFileSync(join(dir, 'instrumented.mjs')),
        type: 'text/javascript',
      },
    },
  });
  try {
    for (const engine of engines) {
      const b = await launchEngine(engine);
      try {
        const tab = await b.newPage();
        await tab.goto(`${srv.url}/b/index.html`);
        await tab.waitFor(() => window.ready === true);
        clockRows[`${engine} ${b.version}`] = await tab.evaluate(() => window.clockCosts());
        const bt = { plain: [], idle: [], after: [], log: [] };
        for (let r = 0; r < ROUNDS + 3; r++) {
          const kinds = ['plain', 'idle', 'log', 'after'];
          const order = kinds.map((_, i) => kinds[(i + r) % kinds.length]);
          if (r % 2) order.reverse();
          for (const k of order) {
            const ms = await tab.evaluate((key) => window.round(key), k);
            if (r >= 3) bt[k].push(ms); // three warm-up rounds
          }
        }
        const base = median(bt.plain);
        const line = (name, k, target) => {
          const ratio = pairedRatio(bt[k], bt.plain);
          return `| ${name} | ${median(bt[k]).toFixed(1)} | ${ratio.toFixed(2)}x | ${target} | ${ratio <= parseFloat(target.slice(2)) ? 'ok' : 'MISSED'} |`;
        };
        console.log(
          `\n### The same in ${engine} ${b.version} (not isolated: log sampler), wall ms, median of ${ROUNDS}, ratio: median of the rounds' ratios (load average ${loadavg()[0].toFixed(1)})\n`,
        );
        console.log('| build | ms | vs plain | target | |\n|---|---|---|---|---|');
        console.log(`| plain (esbuild) | ${base.toFixed(1)} | 1.00x | | |`);
        console.log(line('instrumented, no profiler', 'idle', '<=1.10'));
        console.log(
          line('instrumented, no profiler, after a profiling session', 'after', '<=1.10'),
        );
        console.log(line('instrumented, profiling (log sampler, 1 ms)', 'log', '<=1.50'));
      } finally {
        await b.close();
      }
    }
  } finally {
    await srv.close();
  }
}
console.log('\n### One clock read, ns per call (median of 15 loops of 200,000)\n');
const cols = ['empty loop', 'Date.now()', 'performance.now()', 'bound performance.now'];
console.log(`| engine | ${cols.join(' | ')} |\n|---|${cols.map(() => '---').join('|')}|`);
for (const [engine, r] of Object.entries(clockRows))
  console.log(`| ${engine} | ${cols.map((c) => r[c].toFixed(1)).join(' | ')} |`);
rmSync(dir, { recursive: true, force: true });
