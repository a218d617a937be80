// The instrumentation source when a profiler starts and stops inside one synchronous task around
// a long call (what the WPT js-self-profiling tests do): the call's time is sampled in the call,
// not in the stack stop() runs in, and the shared sampler's first session (a new worker, started
// while the task still runs) samples that stretch once, not twice.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./fixtures/instrument-stop-in-task.mjs', import.meta.url));
const run = (mode, rounds, env = {}) => {
  const r = spawnSync(process.execPath, [CHILD, mode, String(rounds)], {
    encoding: 'utf8',
    timeout: 60000,
    env: { ...process.env, ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const share = (samples, stack) => samples.filter(([s]) => s === stack).length / samples.length;
// `caller` started the profiler, so it is not on the stack (the probes keep it only from the
// start: probes.js); the stack stop() runs in is then the empty one.
const SPIN = 'work>(anonymous)>spin';
const AT_STOP = '';

test('log sampler, coarse clock: a long call ended by no stamped record is not given to the stack stop() runs in', () => {
  const rounds = run('log', 3, { COARSE: '1' });
  for (const [i, samples] of rounds.entries()) {
    assert.ok(samples.length >= 20, `round ${i}: ${samples.length} samples`);
    // Until stop 21 every sample of every round was the stack at stop().
    assert.ok(share(samples, AT_STOP) <= 0.1, `round ${i}: ${JSON.stringify(samples)}`);
    // The first time, the stretch is spread over the records that no stamp separated (the
    // documented limit of the stamps); once learned, it is the callee's.
    if (i > 0) assert.ok(share(samples, SPIN) >= 0.9, `round ${i}: ${JSON.stringify(samples)}`);
  }
});

// Node 18 has no process.getBuiltinModule: an ES module cannot start the sampler worker there
// (as in profiler-instrument-source, which the Makefile leaves out on Node 18).
const noWorker =
  typeof process.getBuiltinModule !== 'function' && 'Node 18: no worker for the shared sampler';

test("shared sampler, first session (a new worker): the stretch is sampled once, at the session's interval", {
  skip: noWorker,
}, () => {
  const [first, second] = run('shared', 2);
  for (const samples of [first, second]) {
    const times = samples.map(([, t]) => t).sort((a, b) => a - b);
    // 300 ms at 10 ms: about 30 samples, a few more on a loaded machine (until stop 21, the
    // first session had ~60: the log sampler's and the worker's, 1-2 ms apart).
    assert.ok(times.length <= 45, `${times.length} samples: ${JSON.stringify(times)}`);
  }
  // The worker's samples are exact; the log sampler's, before the new worker started, are
  // spread over the records the first time (see the log sampler's test above). A pooled worker
  // samples the second session from the start.
  assert.ok(share(second, SPIN) >= 0.9, JSON.stringify(second));
});
