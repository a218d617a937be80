// One implementation in a process of its own, in steady state: batches of 50,000 operations of
// a workload, the buffer cleared after each (as a service that reports and clears does), timed
// whole, garbage collection included. In one shared process the implementations' garbage is
// collected together and each round pays for the others' (the in-process rows of `make bench`
// swing 5x on that); here each pays for its own.
// bench/node.mjs runs one process per implementation side by side and asks them for one batch
// at a time, in turn: each line on stdin runs one batch and answers its wall time and its CPU
// time per operation, so the implementations alternate every few tens of milliseconds and see
// the same machine load. The CPU time is the whole process's (every thread: V8's concurrent and
// background garbage collection too, which runs on while the process waits for its next turn)
// since the previous answer, so a process pays for all its work, and time it spends waiting for
// a core on this shared machine counts for neither.
// A workload named `...@K` keeps K marks of 100 names (taken in turn) buffered: the measures
// take their start and end marks from that pool, and only the measures are cleared. For
// `clearMarks()@K` a batch is one clearMarks() of K marks (after an untimed refill): its ns
// (wall time for both figures: one call of tens of microseconds, no background work).
// Usage: node bench/node-steady.mjs host|ours GLUE_DIR WORKLOAD
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { nestedMeasures } from './workloads.mjs';

const [which, glueDir, spec] = process.argv.slice(2);
const p =
  which === 'host'
    ? globalThis.performance
    : (await import(pathToFileURL(join(resolve(glueDir), 'glue/index.js')).href)).performance;
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

let batch;
if (workload === 'clearMarks()') {
  batch = () => {
    fill(pool);
    const t0 = process.hrtime.bigint();
    p.clearMarks();
    const ns = Number(process.hrtime.bigint() - t0);
    return [ns, ns];
  };
} else {
  const run = workloads[workload];
  if (!run) throw new Error(`unknown workload '${workload}'`);
  for (let i = 0; i < 64; i++) open[i] = p.now();
  fill(pool);
  let cpu = process.cpuUsage();
  batch = () => {
    const t0 = process.hrtime.bigint();
    run(BATCH);
    if (!pool) p.clearMarks();
    p.clearMeasures();
    const wall = Number(process.hrtime.bigint() - t0) / BATCH;
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    return [wall, ((used.user + used.system) * 1000) / BATCH];
  };
}
// Warm-up: the JIT's tiers and the heap's sizing settle (their background threads' CPU time
// would otherwise land in the first batches).
for (let i = 0; i < (workload === 'clearMarks()' ? 2 : 10); i++) batch();
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'quit') break;
  const [wall, cpuNs] = batch();
  process.stdout.write(`${wall.toFixed(1)} ${cpuNs.toFixed(1)}\n`);
}
process.exit(0); // 'quit' ends the process even while its stdin stays open
