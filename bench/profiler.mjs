// Profiler bench: perfshim's Profiler against the raw node:inspector Profiler domain, measured
// side by side in the same run (both sample the same workload at once, order alternated), so
// the table holds ratios, not absolute figures from different moments.
//   node bench/profiler.mjs [--quick]
import inspector from 'node:inspector';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getProfiler } from '../glue/profiler/profiler.js';
import { loadCore } from '../glue/host/loader.js';
import { createTraceCodec } from '../glue/profiler/profiler-trace.js';

const Profiler = getProfiler();
const codec = createTraceCodec(loadCore());
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 2 : 4; // even: each of ours and raw stops first in half the rounds

// A broad call tree, like an application's: 240 functions in a module file of their own, each
// calling two others a few levels deep, so the profile's tree (not its sample list) dominates.
const dir = mkdtempSync(join(tmpdir(), 'perfshim-bench-'));
const N = 240;
let src = '';
for (let i = 0; i < N; i++) {
  src +=
    `function handler${i}_${((i * 2654435761) % 9973).toString(36)}(d, x) {\n` +
    `  if (d === 0) { let s = 0; for (let k = 0; k < 400; k++) s += Math.sqrt(k + x); return s; }\n` +
    `  return f[${(i * 7 + 3) % N}](d - 1, x + 1) + f[${(i * 13 + 5) % N}](d - 1, x + 2);\n}\n`;
}
src += `const f = [${Array.from({ length: N }, (_, i) => `handler${i}_${((i * 2654435761) % 9973).toString(36)}`).join(', ')}];\n`;
src +=
  'export function broad(ms) { const end = performance.now() + ms; let x = 0, i = 0; ' +
  `while (performance.now() < end) x += f[(i++ * 31) % ${N}](4, x % 7); return x; }\n`;
writeFileSync(join(dir, 'broad-tree-workload.mjs'), src);
const { broad } = await import(pathToFileURL(join(dir, 'broad-tree-workload.mjs')).href);
rmSync(dir, { recursive: true, force: true });

function spin(ms) {
  const end = performance.now() + ms;
  let x = 0;
  // A few distinct functions so the profile has a realistic tree.
  const a = (n) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += Math.sqrt(i + x);
    return s;
  };
  const b = (n) => {
    const o = [];
    for (let i = 0; i < n; i++) o.push({ i });
    return o.length;
  };
  const c = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += i;
    return s.length;
  };
  while (performance.now() < end) x += a(2000) + b(200) + c(100);
  return x;
}

function raw(intervalUs) {
  const s = new inspector.Session();
  s.connect();
  const post = (m, p) => {
    let r, err;
    s.post(m, p, (e, v) => {
      err = e;
      r = v;
    });
    if (err) throw err;
    return r;
  };
  post('Profiler.enable');
  post('Profiler.setSamplingInterval', { interval: intervalUs });
  post('Profiler.start');
  return {
    stop() {
      const r = post('Profiler.stop');
      s.disconnect();
      return r.profile;
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
};

/** Profile `ms` of work with ours and a raw session at once; time each stop(). */
async function stopCase(intervalMs, ms, work = spin, label = 'tight loop') {
  const oursMs = [],
    rawMs = [],
    sizes = [],
    samples = [],
    convertMs = [];
  for (let round = 0; round < ROUNDS; round++) {
    const r = raw(Math.round(intervalMs * 1000));
    const p = new Profiler({ sampleInterval: intervalMs, maxBufferSize: 1e7 });
    work(ms);
    let profile, trace;
    const timeRaw = () => {
      const t0 = performance.now();
      profile = r.stop();
      rawMs.push(performance.now() - t0);
    };
    const timeOurs = async () => {
      const t0 = performance.now();
      trace = await p.stop();
      oursMs.push(performance.now() - t0);
    };
    if (round % 2) {
      timeRaw();
      await timeOurs();
    } else {
      await timeOurs();
      timeRaw();
    }
    sizes.push(JSON.stringify(trace).length / JSON.stringify(profile).length);
    // Our conversion alone, on the raw session's profile: import into the trie, read back.
    const t0 = performance.now();
    const h = codec.create(1e7);
    codec.importV8(h, profile, 0);
    codec.read(h);
    codec.free(h);
    convertMs.push(performance.now() - t0);
    samples.push([
      trace.samples.length,
      profile.samples.length,
      JSON.stringify(trace).length,
      JSON.stringify(profile).length,
    ]);
  }
  const m = median(samples.map((s) => s[0]));
  const row = samples.find((s) => s[0] === m);
  return {
    case: `${label}, ${ms / 1000} s at ${intervalMs} ms`,
    samples: `${row[0]} / ${row[1]}`,
    'stop ours ms': median(oursMs).toFixed(2),
    'stop raw ms': median(rawMs).toFixed(2),
    'stop ratio': median(oursMs.map((o, i) => o / rawMs[i])).toFixed(2),
    'convert ms': median(convertMs).toFixed(2),
    'JSON KB ours / raw': `${(row[2] / 1024).toFixed(1)} / ${(row[3] / 1024).toFixed(1)}`,
    'JSON ratio': median(sizes).toFixed(2),
  };
}

/** Fixed CPU-bound work timed with no profiler, the raw session and ours, interleaved. */
async function overheadCase(intervalMs) {
  const work = () => {
    let x = 0;
    for (let i = 0; i < 3e6; i++) x += Math.sqrt(i) * Math.sin(i);
    return x;
  };
  const time = (fn) => {
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  };
  for (let i = 0; i < 3; i++) work(); // warm up
  const base = [],
    rawT = [],
    ours = [];
  for (let round = 0; round < ROUNDS * 2; round++) {
    const order = [0, 1, 2].map((k) => (k + round) % 3);
    for (const k of order) {
      if (k === 0)
        base.push(
          time(() => {
            for (let i = 0; i < 5; i++) work();
          }),
        );
      if (k === 1) {
        const r = raw(Math.round(intervalMs * 1000));
        rawT.push(
          time(() => {
            for (let i = 0; i < 5; i++) work();
          }),
        );
        r.stop();
      }
      if (k === 2) {
        const p = new Profiler({ sampleInterval: intervalMs, maxBufferSize: 1e7 });
        ours.push(
          time(() => {
            for (let i = 0; i < 5; i++) work();
          }),
        );
        await p.stop();
      }
    }
  }
  const b = median(base);
  return {
    case: `CPU-bound work at ${intervalMs} ms`,
    'no profiler ms': b.toFixed(1),
    'raw overhead': `${((median(rawT) / b - 1) * 100).toFixed(1)} %`,
    'ours overhead': `${((median(ours) / b - 1) * 100).toFixed(1)} %`,
  };
}

/** Start + stop of an empty session (what a short-lived profiler costs). */
async function startStopCase() {
  const ours = [],
    rawT = [];
  for (let round = 0; round < ROUNDS * 4; round++) {
    let t0 = performance.now();
    const r = raw(10000);
    r.stop();
    rawT.push(performance.now() - t0);
    t0 = performance.now();
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 100 });
    await p.stop();
    ours.push(performance.now() - t0);
  }
  return {
    case: 'empty session start+stop',
    'ours ms': median(ours).toFixed(2),
    'raw ms': median(rawT).toFixed(2),
    ratio: (median(ours) / median(rawT)).toFixed(2),
  };
}

const stopRows = [];
stopRows.push(await stopCase(10, quick ? 500 : 2000));
stopRows.push(await stopCase(10, quick ? 500 : 2000, broad, 'broad tree'));
stopRows.push(await stopCase(1, quick ? 500 : 2000));
stopRows.push(await stopCase(1, quick ? 500 : 2000, broad, 'broad tree'));
// The 10,000-sample case: V8 reaches ~4,000 samples/s at 0.1 ms on these machines.
stopRows.push(await stopCase(0.1, quick ? 500 : 2500, broad, 'broad tree'));
console.log(
  'stop() with conversion vs the raw inspector stop, and trace JSON vs .cpuprofile JSON (medians):',
);
console.table(stopRows);
console.log(
  'Profiling overhead on CPU-bound work (medians; differences under ~5 points are noise here):',
);
console.table([await overheadCase(10), await overheadCase(1)]);
console.table([await startStopCase()]);
