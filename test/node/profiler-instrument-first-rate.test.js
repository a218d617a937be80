// The log sampler under a 1 ms clock: a session stamps every record only until it has measured
// the records' rate over one whole clock tick (from the first tick it sees), not over four: the
// clock reads at a session's start, counted on a clock that moves with the work (no timing).
import test from 'node:test';
import assert from 'node:assert/strict';

// A clock that moves one millisecond every CALLS_PER_TICK calls of the workload, on the
// prototype where perfshim reads the host's clock (set before perfshim loads), counting reads.
const CALLS_PER_TICK = 10000;
let calls = 0,
  reads = 0;
const proto = Object.getPrototypeOf(performance);
const realNow = proto.now;
Object.defineProperty(proto, 'now', {
  value: function now() {
    reads++;
    return 1000 + Math.floor(calls / CALLS_PER_TICK);
  },
  configurable: true,
  writable: true,
});
test.after(() => Object.defineProperty(proto, 'now', { value: realNow, configurable: true }));

const { loadCore } = await import('../../glue/host/loader.js');
const { createProfilerClass } = await import('../../glue/profiler/profiler.js');
const { instrument } = await import('./fixtures/instrument-every-function.mjs');
const { createInstrumentSource } = await import('../../glue/instrument/source.js');

const src = `
export function leaf(f) { return f(); }
export function run(n, f) { let s = 0; for (let i = 0; i < n; i++) s += leaf(f); return s; }`;
const work = await import(
  `data:text/javascript,${encodeURIComponent(instrument(src, { file: 'rate.js' }).code)}`
);

test('log sampler, 1 ms clock: every record is stamped for at most two ticks of a session', async () => {
  const Profiler = createProfilerClass(loadCore(), {
    source: createInstrumentSource({ mode: 'log' }),
  });
  const N = 10 * CALLS_PER_TICK; // 10 ticks, 2 records a call
  const bump = () => calls++;
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  reads = 0;
  work.run(N, bump);
  const during = reads;
  const t = await p.stop();
  // Records in the first (partial) tick and one whole tick after it, then one stamp every 64th
  // record at most (the stride grows past it while the clock reads the same): 2 x 20,000 +
  // 160,000 / 64 = 42,500. Measured over four ticks, the first rate stamped ~80,000.
  const perTick = 2 * CALLS_PER_TICK;
  assert.ok(
    during <= 2 * perTick + (2 * N - 2 * perTick) / 64,
    `${during} clock reads for ${2 * N} records`,
  );
  // And the profile still has the workload on its stacks at the ticks.
  const names = new Set(t.samples.map((s) => t.frames[t.stacks[s.stackId]?.frameId]?.name));
  assert.ok(names.has('leaf') || names.has('run'), [...names].join(' '));
});
