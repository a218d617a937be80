// Instrumentation bench: a real npm library (marked, rendering a large Markdown document)
// bundled by esbuild twice, once plain and once through perfshim's bundler plugin, as a user
// would build it; the two are timed side by side in one run (order alternated). Targets:
// instrumented with no profiler running <= 1.10x the plain time; while a Profiler samples it
// through the instrumentation source <= 1.5x (both samplers); and attribution: of two
// functions where one does twice the work, the sample counts' ratio lies in 1.5–2.5.
// Two copies of the instrumented bundle are loaded: one is only ever run with no profiler, the
// other also under the profilers, so the cost of code compiled while a profiler was logging
// shows as its own row ("after a profiling session").
//
// A render's time varies by up to 2x from one round to the next on this kind of machine (a
// major GC, or regexps recompiled after one, lands in whichever render runs then), so every
// ratio is the median of the rounds' own ratios (each round runs every variant back to back),
// printed with its spread (the rounds' 25th–75th percentile) and the number of rounds.
// Each process (Node) or page (browsers) also settles into a state of its own (which functions
// the JIT inlined, where the code landed): identical code ran 43.8 ms a render in one Chromium
// page and 60.1 in another. So the rounds are split over BATCH-round batches, each in a fresh
// process or page (one per revision, alternating), and each median comes with a 95 % interval
// from a two-level bootstrap (resample the batches, then the rounds within each): the change a
// run can resolve, which more rounds narrow.
// Two more builds (unless --no-floor) show where the no-profiler cost comes from, cut from the
// transform's own output (bench/floor-builds.mjs): "always-on stack" keeps the push and the pops
// on every call, switch or not, without the logging tests (what any shadow stack kept while no
// profiler runs costs), and "no probes" keeps only the transform's code shape (`__psv` at each
// return, the header). A third reference row, "switch on, no logger", runs the profiled copy with
// the probes' switch on and no logger (the stack kept by the push and pop calls, nothing logged):
// the log sampler's cost is that row plus the records and the logger.
//   node bench/instrument.mjs [--quick] [--rounds=N] [--no-browser] [--no-node]
//     [--engines=chromium,firefox,webkit] [--no-floor] [--split=N]
//     --split=N: in the browsers, render the document N sections per marked.parse call (default:
//                the whole document in one call, except in WebKit, 1; 0: the whole document).
//                WebKit's regexp engine (JSC, WebKitGTK 2.50) does not fail fast on marked's
//                `^`-anchored block rules (hr, table, blockquote, html, lheading): each failed
//                exec scans the rest of the document (~2 ms at 280 KB; V8 ~0), and the lexer
//                tries them at every block, so a render is quadratic in the document's size: 17 s
//                for the whole document, which made the bench look hung in WebKit for hours.
//                Split into sections, the same text renders in ~0.3 s, linear (the page renders
//                the same sections in every variant, so the ratios compare like with like).
//     [--baseline=DIR]  DIR: another revision (e.g. `git archive main | tar -x -C DIR`), timed
//                       side by side: its own bundles and glue, in processes (Node) and pages
//                       (browsers) of its own, alternating with ours.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir, loadavg, cpus, constants } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name) =>
  (process.argv.find((a) => a.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const quick = process.argv.includes('--quick');
const ROUNDS = Number(arg('rounds')) || (quick ? 10 : 40); // --rounds=N: more, for a finer median
const BATCH = quick ? 5 : 10; // rounds per process or page
const BATCHES = Math.max(2, Math.ceil(ROUNDS / BATCH));
const WARM = 5; // warm-up rounds in each new process or page, not counted
const FLOOR = !process.argv.includes('--no-floor');
const KINDS = process.env.BENCH_KINDS
  ? process.env.BENCH_KINDS.split(',')
  : ['plain', 'idle', 'log', 'after', 'shared', ...(FLOOR ? ['stack', 'bare', 'on'] : [])];
const median = (a) => quantile(a, 0.5);
function quantile(a, q) {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.round(q * (s.length - 1))];
}
// A large document: every block and inline construct marked handles, repeated.
const section = (i) =>
  `# Heading ${i}\n\nSome *emphasis*, **strong**, \`code\`, a [link](https://example.com/${i}) and ` +
  `an ![image](i${i}.png).\n\n> A quote with _more_ text\n> over two lines.\n\n- item one\n- item **two**\n  - nested ${i}\n\n` +
  `1. first\n2. second\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | ${i * 2} |\n\n---\n\n`;
const sections = Array.from({ length: quick ? 300 : 1000 }, (_, i) => section(i));
const doc = sections.join('');

// Node, one process per batch of rounds (--child=ROOT,DIR,ROUNDS): the revision at ROOT with the
// bundles in DIR. Times are the process's CPU ms (all threads: the shared sampler's worker
// counts against us), not wall time: on a shared machine a descheduled thread would add other
// programs' time to whichever variant ran then. The processes run with a 128 MB young
// generation (NODE_FLAGS), emptied before each render: a render then rarely has a GC in it
// (without this, a GC landing in one render moved its time by 2-6x in a third of the rounds);
// the probes allocate nothing, so this takes out noise, not cost (the ratios come out higher,
// over a smaller base). BENCH_KINDS=plain,log (for example) times only those variants.
const child = arg('child');
if (child) {
  const [root, dir, rounds] = child.split(',');
  const glue = (p) => import(pathToFileURL(join(root, 'glue', p)).href);
  const plain = await import(pathToFileURL(join(dir, 'plain.mjs')).href);
  const instrumented = await import(pathToFileURL(join(dir, 'instrumented.mjs')).href);
  const neverProfiled = await import(`${pathToFileURL(join(dir, 'instrumented.mjs')).href}?never`);
  const { createInstrumentSource } = await glue('instrument/source.js');
  const { getProbes } = await glue('instrument/probes.js');
  const { createProfilerClass } = await glue('profiler/profiler.js');
  const { loadCore } = await glue('host/loader.js');
  const core = loadCore();
  const profilers = {
    log: createProfilerClass(core, { source: createInstrumentSource({ mode: 'log' }) }),
    shared: createProfilerClass(core, { source: createInstrumentSource({ mode: 'shared' }) }),
  };
  if (plain.marked.parse(doc) !== instrumented.marked.parse(doc))
    throw new Error('the instrumented library renders differently');
  const cpu = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const times = {};
  for (const k of KINDS) times[k] = [];
  const render = { plain, idle: neverProfiled, after: instrumented, log: instrumented };
  render.shared = instrumented;
  render.on = instrumented;
  if (KINDS.includes('stack'))
    render.stack = await import(pathToFileURL(join(dir, 'stack.mjs')).href);
  if (KINDS.includes('bare')) render.bare = await import(pathToFileURL(join(dir, 'bare.mjs')).href);
  let samples = 0;
  for (let r = -WARM; r < Number(rounds); r++) {
    // every variant in every position and after every other one in turn
    const order = KINDS.map((_, i) => KINDS[(i + r + WARM) % KINDS.length]);
    if (r % 2) order.reverse();
    for (const k of order) {
      const p =
        k === 'log' || k === 'shared'
          ? new profilers[k]({ sampleInterval: 1, maxBufferSize: 1e6 })
          : null;
      if (globalThis.gc) globalThis.gc({ type: 'minor' }); // the young generation empty
      if (k === 'on') getProbes().use(1);
      const c0 = cpu();
      render[k].marked.parse(doc);
      const c = cpu() - c0;
      if (k === 'on') getProbes().use(-1);
      if (p) {
        samples += (await p.stop()).samples.length;
        // A pause for the session's background work (V8's concurrent GC and compiler threads,
        // the sampler worker's last batch) to end before the next variant's render: process
        // CPU time counts every thread. (A full gc() here instead made every render ~5x slower:
        // V8 flushes the bytecode of functions aged by major GCs.)
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      if (r >= 0) times[k].push(c);
    }
  }
  process.stdout.write(JSON.stringify({ times, samples }));
  process.exit(0);
}

// Ended by a signal (Ctrl-C, `timeout`, a killed job): leave through process.exit, so that
// exit hooks run: the harness's ends WebKitWebDriver (and with it MiniBrowser) and Xvfb, which
// a signal's default action skipped, leaving them running; ours removes the bundles.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.once(sig, () => process.exit(128 + constants.signals[sig]));
const dir = mkdtempSync(join(tmpdir(), 'perfshim-bench-instrument-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const baseline = arg('baseline') ? resolve(arg('baseline')) : '';
const revisions = [{ name: 'this tree', root: ROOT, dir: join(dir, 'this') }];
if (baseline) revisions.push({ name: 'baseline', root: baseline, dir: join(dir, 'baseline') });
const entry = join(ROOT, 'node_modules/marked/lib/marked.esm.js');
for (const rev of revisions) {
  const { esbuildPlugin } = await import(
    pathToFileURL(join(rev.root, 'glue/instrument/index.js')).href
  );
  const opts = { entryPoints: [entry], bundle: true, format: 'esm', logLevel: 'silent' };
  await build({ ...opts, outfile: join(rev.dir, 'plain.mjs') });
  await build({
    ...opts,
    outfile: join(rev.dir, 'instrumented.mjs'),
    plugins: [esbuildPlugin({ include: /node_modules[\\/]marked/ })],
  });
  if (FLOOR) {
    // The transform's own output, before esbuild reprints it, through the same transform as
    // the plugin's (this revision's), then cut down.
    const { instrument } = await import(
      pathToFileURL(join(rev.root, 'glue/instrument/transform.js')).href
    );
    // (the revision's own cuts, which follow its own transform's text)
    const { floorBuilds } = await import(
      pathToFileURL(join(rev.root, 'bench/floor-builds.mjs')).href
    );
    for (const variant of ['stack', 'bare']) {
      const floor = {
        name: `floor-${variant}`,
        setup(b) {
          b.onLoad({ filter: /node_modules[\\/]marked[\\/].*\.js$/ }, (a) => ({
            contents: floorBuilds(instrument(readFileSync(a.path, 'utf8'), { file: a.path }).code)[
              variant
            ],
            loader: 'js',
          }));
        },
      };
      await build({ ...opts, outfile: join(rev.dir, `${variant}.mjs`), plugins: [floor] });
    }
  }
}

/** The row of variant k against plain: the median of the rounds' ratios and its 95 % interval
 *  (two-level bootstrap: batches with replacement, then rounds within each; t.batch[i] is round
 *  i's batch). A fixed seed, so a run's intervals do not move between printings. */
function ratioOf(t, k) {
  const rs = t[k].map((v, i) => v / t.plain[i]);
  const batches = [];
  rs.forEach((r, i) => (batches[t.batch[i]] ||= []).push(r));
  let seed = 0x2545f491;
  const rand = (n) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const meds = [];
  for (let it = 0; it < 1000; it++) {
    const pick = [];
    for (let b = 0; b < batches.length; b++) {
      const bt = batches[rand(batches.length)];
      for (let j = 0; j < bt.length; j++) pick.push(bt[rand(bt.length)]);
    }
    meds.push(median(pick));
  }
  return { ms: median(t[k]), r: median(rs), lo: quantile(meds, 0.025), hi: quantile(meds, 0.975) };
}
const fmt = (x) => `${x.r.toFixed(2)}x (${x.lo.toFixed(2)}–${x.hi.toFixed(2)})`;
const ROWS = [
  ['instrumented, no profiler', 'idle', 1.1],
  ['instrumented, no profiler, after a profiling session', 'after', 1.1],
  ['instrumented, profiling (log sampler, 1 ms)', 'log', 1.5],
  ['instrumented, profiling (shared-stack sampler, 1 ms)', 'shared', 1.5],
  [
    'for reference: always-on stack (push and pop on every call; no logging tests)',
    'stack',
    Infinity,
  ],
  ["for reference: no probes (the transform's code shape only)", 'bare', Infinity],
  ['for reference: switch on, no logger (the push and pop calls alone)', 'on', Infinity],
];
function table(title, byRev, rows) {
  console.log(`\n### ${title}\n`);
  const cols = byRev.map(([name]) => name);
  console.log(
    `| build | ${cols.map((c) => `${c}: ms | ${c}: vs plain (95 % CI)`).join(' | ')} | target |`,
  );
  console.log(`|---|${cols.map(() => '---|---').join('|')}|---|`);
  console.log(
    `| plain (esbuild) | ${byRev.map(([, t]) => `${median(t.plain).toFixed(1)} | 1.00x`).join(' | ')} | |`,
  );
  for (const [name, k, target] of rows) {
    if (!byRev[0][1][k]) continue; // not in BENCH_KINDS
    const cells = byRev.map(([, t]) => {
      const x = ratioOf(t, k);
      return `${x.ms.toFixed(1)} | ${fmt(x)}${x.r <= target ? '' : ' MISSED'}`;
    });
    console.log(
      `| ${name} | ${cells.join(' | ')} | ${target < Infinity ? `<= ${target.toFixed(2)}x` : ''} |`,
    );
  }
}

// Node: batches of rounds in processes of their own, the revisions alternating.
// --no-node: the browsers' rows only (experiments).
if (!process.argv.includes('--no-node')) {
  const NODE_FLAGS = ['--max-semi-space-size=128', '--expose-gc'];
  const node = new Map(revisions.map((rev) => [rev.name, null]));
  let samples = 0;
  for (let b = 0; b < BATCHES; b++) {
    const order = b % 2 ? [...revisions].reverse() : revisions;
    for (const rev of order) {
      const r = spawnSync(
        process.execPath,
        [
          ...NODE_FLAGS,
          fileURLToPath(import.meta.url),
          `--child=${rev.root},${rev.dir},${BATCH}`,
          ...(FLOOR ? [] : ['--no-floor']),
        ],
        { encoding: 'utf8', maxBuffer: 1 << 26 },
      );
      if (r.status !== 0) throw new Error(`bench child (${rev.name}) failed:\n${r.stderr}`);
      const { times, samples: n } = JSON.parse(r.stdout);
      if (rev.root === ROOT) samples += n;
      times.batch = times.plain.map(() => b);
      const acc = node.get(rev.name);
      if (!acc) node.set(rev.name, times);
      else for (const k of [...KINDS, 'batch']) acc[k].push(...times[k]);
    }
  }
  table(
    `Instrumentation overhead, Node ${process.version}: marked rendering ${(doc.length / 1024).toFixed(0)} KB of Markdown (CPU ms, ${NODE_FLAGS.join(' ')}; median of ${BATCHES * BATCH} rounds in ${BATCHES} processes per revision; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs)`,
    [...node],
    ROWS,
  );
  console.log(`\nsamples taken (this tree, log + shared): ${samples}`);

  // Attribution: heavy does twice the work of light (the same loop, twice as many iterations, by
  // count rather than by clock; each iteration costs the same, checked: CPU time ratio 2.00).
  const { instrument } = await import('../glue/instrument/transform.js');
  const { createInstrumentSource } = await import('../glue/instrument/source.js');
  const { createProfilerClass } = await import('../glue/profiler/profiler.js');
  const { loadCore } = await import('../glue/host/loader.js');
  const core = loadCore();
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
  for (const mode of ['log', 'shared']) {
    const Profiler = createProfilerClass(core, { source: createInstrumentSource({ mode }) });
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
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
      `| ${mode} | ${n.heavy} | ${n.light} | ${ratio.toFixed(2)} | 1.5–2.5 | ${ratio >= 1.5 && ratio <= 2.5 ? 'ok' : 'MISSED'} |`,
    );
  }
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

// The same bundles in browsers (--engines=chromium,firefox,webkit; default chromium), Chromium
// without the js-profiling policy and none of them isolated: the case the log sampler is for.
// Wall time; batches of rounds in a fresh page per revision, the rounds alternating between them.
if (!process.argv.includes('--no-browser')) {
  const { launchEngine, serve } = await import('../test/browser/harness.js');
  const engines = arg('engines') ? arg('engines').split(',') : ['chromium'];
  const routes = {};
  const js = (body) => ({ body, type: 'text/javascript' });
  const addTree = (from, prefix) => {
    for (const name of readdirSync(from)) {
      const p = join(from, name);
      if (statSync(p).isDirectory()) addTree(p, `${prefix}/${name}`);
      else if (name.endsWith('.js')) routes[`${prefix}/${name}`] = js(readFileSync(p));
    }
  };
  revisions.forEach((rev, i) => {
    const at = `/rev${i}`;
    addTree(join(rev.root, 'glue'), `${at}/glue`);
    addTree(join(rev.root, 'wasm'), `${at}/wasm`);
    routes[`${at}/b/plain.mjs`] = js(readFileSync(join(rev.dir, 'plain.mjs')));
    routes[`${at}/b/instrumented.mjs`] = js(readFileSync(join(rev.dir, 'instrumented.mjs')));
    if (FLOOR)
      for (const f of ['stack', 'bare'])
        routes[`${at}/b/${f}.mjs`] = js(readFileSync(join(rev.dir, `${f}.mjs`)));
    routes[`${at}/b/index.html`] = {
      body: `<!doctype html><script type=module>
import { getProfiler } from '${at}/glue/profiler/profiler.js';
import { getProbes } from '${at}/glue/instrument/probes.js';
import * as plain from '${at}/b/plain.mjs';
import * as inst from '${at}/b/instrumented.mjs';
import * as fresh from '${at}/b/instrumented.mjs?never-profiled';
${FLOOR ? `import * as stack from '${at}/b/stack.mjs';\nimport * as bare from '${at}/b/bare.mjs';` : ''}
const sections = ${JSON.stringify(sections)};
const doc = sections.join('');
// ?split=N: N sections per marked.parse call (see --split), 0: the whole document in one.
const split = Number(new URLSearchParams(location.search).get('split')) || 0;
const parts = [];
for (let i = 0; split && i < sections.length; i += split)
  parts.push(sections.slice(i, i + split).join(''));
const parse = split
  ? (m) => { for (const part of parts) m.marked.parse(part); }
  : (m) => m.marked.parse(doc);
const time = (f) => { const t0 = performance.now(); f(); return performance.now() - t0; };
window.round = async (k) => {
  if (k === 'plain') return time(() => parse(plain));
  if (k === 'stack') return time(() => parse(stack));
  if (k === 'bare') return time(() => parse(bare));
  if (k === 'idle') return time(() => parse(fresh));
  if (k === 'after') return time(() => parse(inst));
  if (k === 'on') {
    getProbes().use(1);
    try { return time(() => parse(inst)); } finally { getProbes().use(-1); }
  }
  const p = new (getProfiler())({ sampleInterval: 1, maxBufferSize: 1e6 });
  const ms = time(() => parse(inst));
  await p.stop();
  return ms;
};
window.clockCosts = ${clockCosts.toString()};
window.ready = true;
</script>`,
    };
  });
  const srv = await serve({ routes });
  try {
    for (const engine of engines) {
      const split = arg('split') !== '' ? Number(arg('split')) : engine === 'webkit' ? 1 : 0;
      const started = Date.now();
      const b = await launchEngine(engine);
      try {
        const kinds = KINDS.filter((k) => k !== 'shared'); // (BENCH_KINDS too)
        const bt = revisions.map(() => Object.fromEntries([...kinds, 'batch'].map((k) => [k, []])));
        for (let batch = 0; batch < BATCHES; batch++) {
          const tabs = [];
          for (let i = 0; i < revisions.length; i++) {
            const tab = await b.newPage();
            await tab.goto(`${srv.url}/rev${i}/b/index.html?split=${split}`);
            // (a page that fails to load says why: WebKit's driver reports no page errors)
            await tab
              .waitFor(() => window.ready === true, undefined, { timeout: 60000 })
              .catch(async (e) => {
                throw new Error(`${e.message}; page errors: ${(await tab.errors()).join('\n')}`);
              });
            tabs.push(tab);
          }
          if (batch === 0)
            clockRows[`${engine} ${b.version}`] = await tabs[0].evaluate(() => window.clockCosts());
          for (let r = -WARM; r < BATCH; r++) {
            const order = kinds.map((_, i) => kinds[(i + r + WARM) % kinds.length]);
            if ((r + batch) % 2) order.reverse();
            for (let j = 0; j < tabs.length; j++) {
              const i = (r + batch) % 2 ? tabs.length - 1 - j : j;
              for (const k of order) {
                const ms = await tabs[i].evaluate((key) => window.round(key), k);
                if (r >= 0) bt[i][k].push(ms);
              }
              if (r >= 0) bt[i].batch.push(batch);
            }
          }
          for (const tab of tabs) await tab.close();
          // progress (a batch takes minutes in some engines): on stderr, out of the tables
          process.stderr.write(
            `${engine}: batch ${batch + 1}/${BATCHES} done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
          );
        }
        table(
          `The same in ${engine} ${b.version} (not isolated: log sampler), wall ms, ${split ? `the document in ${Math.ceil(sections.length / split)} marked.parse calls of ${split} section${split > 1 ? 's' : ''}` : 'the document in one marked.parse call'}, median of ${BATCHES * BATCH} rounds in ${BATCHES} pages per revision (load average ${loadavg()[0].toFixed(1)})`,
          revisions.map((rev, i) => [rev.name, bt[i]]),
          ROWS,
        );
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
