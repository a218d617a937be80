// One implementation in a process of its own, in steady state: N operations of a workload with
// the buffer cleared every 50,000 entries (as a service that reports and clears does), timed
// whole, garbage collection included. In one shared process the implementations' garbage is
// collected together and each round pays for the others' (the in-process rows of `make bench`
// swing 5x on that); here each pays for its own. Prints ns per operation.
// A workload named `...@K` keeps K marks of 100 names (taken in turn) buffered: the measures
// take their start and end marks from that pool, and only the measures are cleared. The
// `clearMarks()@K` workload times one clearMarks() of K marks, N times (each after a refill,
// untimed), and prints the median.
// Usage (bench/node.mjs runs it): node bench/node-steady.mjs host|ours GLUE_DIR WORKLOAD N
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { nestedMeasures } from './workloads.mjs';

const [which, glueDir, spec, count] = process.argv.slice(2);
const p =
  which === 'host'
    ? globalThis.performance
    : (await import(pathToFileURL(join(resolve(glueDir), 'glue/index.js')).href)).performance;
const n = Number(count);
const [workload, poolText] = spec.split('@');
const pool = Number(poolText || 0);
const names = Array.from({ length: 100 }, (_, i) => `name-${i}`);
const ids = Array.from({ length: 64 }, (_, i) => `request-${i}`);
const open = new Float64Array(64);
const BATCH = 50000;
// Request ids: a name of its own per entry (the same 50,000 again after each clear).
const unique = Array.from({ length: BATCH }, (_, i) => `request-${i.toString(36)}-${i}`);
const fill = (k) => {
  for (let i = 0; i < k; i++) p.mark(names[i % 100]);
};

const workloads = {
  mark(k) {
    for (let i = 0; i < k; i++) p.mark(names[i % 100]);
  },
  'mark, a unique name each'(k) {
    for (let i = 0; i < k; i++) p.mark(unique[i]);
  },
  'request spans'(k) {
    for (let i = 0; i < k; i++) {
      const j = i & 63;
      p.measure(ids[j], { start: open[j] });
      open[j] = p.now();
    }
  },
  nested(k) {
    nestedMeasures(p, k);
  },
  'measure, marks of 100 names'(k) {
    for (let i = 0; i < k; i++) p.measure('m', names[i % 100], names[(i + 37) % 100]);
  },
};

const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
if (workload === 'clearMarks()') {
  const times = [];
  for (let r = -2; r < n; r++) {
    fill(pool);
    const t0 = process.hrtime.bigint();
    p.clearMarks();
    if (r >= 0) times.push(Number(process.hrtime.bigint() - t0));
  }
  console.log(median(times).toFixed(1));
} else {
  const run = workloads[workload];
  if (!run) throw new Error(`unknown workload '${workload}'`);
  for (let i = 0; i < 64; i++) open[i] = p.now();
  fill(pool);
  const all = (total) => {
    for (let done = 0; done < total; done += BATCH) {
      run(Math.min(BATCH, total - done));
      if (!pool) p.clearMarks();
      p.clearMeasures();
    }
  };
  all(2 * BATCH); // warm-up
  const t0 = process.hrtime.bigint();
  all(n);
  console.log((Number(process.hrtime.bigint() - t0) / n).toFixed(1));
}
