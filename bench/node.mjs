// make bench (Node part): perfshim vs Node's own perf_hooks, same process, interleaved rounds,
// median per-operation times and their ratio. Run with --expose-gc for the memory figures.
import { performance as ours, PerformanceObserver as OurObserver } from '../glue/index.js';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const host = globalThis.performance;
const HostObserver = globalThis.PerformanceObserver;
const gc = globalThis.gc || (() => {});
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const rows = [];

function time(fn, n) {
  const t0 = process.hrtime.bigint();
  fn(n);
  return Number(process.hrtime.bigint() - t0) / n; // ns per op
}

const yieldTask = () => new Promise((resolve) => setImmediate(resolve));

/** Interleave rounds of two implementations, yielding to the event loop between rounds (as
 *  real code does: observers deliver); records [hostNs, oursNs]. */
async function compare(label, setup, run, n, rounds = 7, target = '', heavy = false) {
  const h = [], o = [];
  for (let r = 0; r < rounds; r++) {
    for (const [impl, out] of r % 2 ? [[ours, o], [host, h]] : [[host, h], [ours, o]]) {
      impl.clearMarks(); impl.clearMeasures();
      const state = setup(impl);
      await yieldTask();
      // A forced full GC discards warm JIT state: collect only after heavy setups, whose garbage
      // would otherwise land in the timed loop (as real programs do not collect before marking).
      if (heavy) gc();
      out.push(time((k) => run(impl, k, state), n));
      await yieldTask();
    }
  }
  host.clearMarks(); host.clearMeasures(); ours.clearMarks(); ours.clearMeasures();
  const hn = median(h), on = median(o);
  rows.push({ workload: label, 'node (ns/op)': hn.toFixed(0), 'perfshim (ns/op)': on.toFixed(0), ratio: (on / hn).toFixed(3), target });
}

const names = Array.from({ length: 100 }, (_, i) => `name-${i}`);

await compare('mark(name)', () => null, (p, n) => { for (let i = 0; i < n; i++) p.mark(names[i % 100]); }, 50000, 7, '≤ 0.5');
await compare('mark(name, {detail})', () => null,
  (p, n) => { for (let i = 0; i < n; i++) p.mark(names[i % 100], { detail: { step: i, label: 'x' } }); }, 50000, 7, '≤ 0.5');
await compare('measure(name, a, b) @1k', (p) => { for (let i = 0; i < 1000; i++) p.mark(names[i % 100]); },
  (p, n) => { for (let i = 0; i < n; i++) p.measure('m', 'name-1', 'name-2'); }, 50000, 7, '≤ 0.5');
await compare('measure(name, a, b) @100k', (p) => { for (let i = 0; i < 100000; i++) p.mark(names[i % 100]); },
  (p, n) => { for (let i = 0; i < n; i++) p.measure('m', 'name-1', 'name-2'); }, 50000, 5, '≤ 0.5, flat', true);
await compare('getEntriesByName → 10 @100k', (p) => {
  for (let i = 0; i < 99990; i++) p.mark(names[i % 100]);
  for (let i = 0; i < 10; i++) p.mark('needle');
}, (p, n) => { let s = 0; for (let i = 0; i < n; i++) s += p.getEntriesByName('needle').length; if (s !== n * 10) throw new Error('wrong count'); }, 20, 5, '≤ 0.01', true);
{
  const [OurObs, HostObs] = [OurObserver, HostObserver];
  let obsOurs, obsHost;
  await compare('mark() with 1 observer', (p) => {
    if (obsOurs) obsOurs.disconnect();
    if (obsHost) obsHost.disconnect();
    obsOurs = new OurObs(() => {}); obsOurs.observe({ type: 'mark' });
    obsHost = new HostObs(() => {}); obsHost.observe({ type: 'mark' });
  }, (p, n) => { for (let i = 0; i < n; i++) p.mark(names[i % 100]); }, 20000, 7, '≤ 0.5');
  obsOurs.disconnect(); obsHost.disconnect();
}

// Delivery latency: mark() to callback, median of 50.
async function latency(p, Obs) {
  const out = [];
  for (let i = 0; i < 50; i++) {
    out.push(await new Promise((resolve) => {
      const o = new Obs(() => { o.disconnect(); resolve(Number(process.hrtime.bigint() - t0) / 1000); });
      o.observe({ type: 'mark' });
      const t0 = process.hrtime.bigint();
      p.mark('latency');
    }));
  }
  return median(out);
}
{
  const lh = await latency(host, HostObserver), lo = await latency(ours, OurObserver);
  rows.push({ workload: 'observer delivery latency (µs)', 'node (ns/op)': (lh * 1000).toFixed(0), 'perfshim (ns/op)': (lo * 1000).toFixed(0), ratio: (lo / lh).toFixed(3), target: '≤ 1' });
}

// clearMarks(name) at 1,000,000 entries (Node's own: one round; it is slow).
{
  const fill = (p) => { for (let i = 0; i < 1e6; i++) p.mark(names[i % 100]); };
  const one = (p) => { fill(p); gc(); const t0 = process.hrtime.bigint(); p.clearMarks('name-7'); const ns = Number(process.hrtime.bigint() - t0); p.clearMarks(); return ns; };
  const h = [one(host)], o = [one(ours), one(ours), one(ours)];
  rows.push({ workload: 'clearMarks(name) @1M', 'node (ns/op)': median(h).toFixed(0), 'perfshim (ns/op)': median(o).toFixed(0), ratio: (median(o) / median(h)).toFixed(3), target: '< Chromium (≈9 ms)' });
}

console.table(rows);

// Memory per buffered mark and the 10M-mark run, each in a child process of its own.
const self = fileURLToPath(new URL('./node-memory.mjs', import.meta.url));
for (const args of [['host', '1000000'], ['ours', '1000000'], ['ours', '10000000']]) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', self, ...args], { encoding: 'utf8' });
  process.stdout.write(r.stdout || r.stderr);
}

// Synchronous install time in a fresh process: import 'perfshim/auto' (the package's bundled
// entry) until the APIs are installed, then the first mark() (which instantiates the core).
{
  const code = `const t0 = performance.now(); await import(${JSON.stringify(new URL('../dist/auto.mjs', import.meta.url).href)}); const t1 = performance.now(); performance.mark('first'); const t2 = performance.now(); console.log((t1 - t0).toFixed(2), (t2 - t1).toFixed(2));`;
  // From a module file, as a program would (an `-e` module pays a one-time loader set-up).
  const file = join(mkdtempSync(join(tmpdir(), 'perfshim-bench-')), 'install.mjs');
  writeFileSync(file, code);
  const install = [], first = [];
  for (let i = 0; i < 7; i++) {
    const [a, b] = spawnSync(process.execPath, [file], { encoding: 'utf8' }).stdout.trim().split(' ').map(Number);
    install.push(a);
    first.push(b);
  }
  console.log(`install (import 'perfshim/auto' in a fresh process, synchronous, APIs usable): median ${median(install).toFixed(2)} ms (target < 5 ms); the first mark() then instantiates the core: median ${median(first).toFixed(2)} ms`);
}
