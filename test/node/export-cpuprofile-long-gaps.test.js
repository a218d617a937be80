// A .cpuprofile's timeDeltas are JSON numbers with no int32 limit: a gap of 2^31 µs (35.8 min)
// or more between two samples (an idle server, a laptop asleep) round-trips through
// toCpuProfile and fromCpuProfile, and a .cpuprofile written elsewhere with such a delta imports.
import test from 'node:test';
import assert from 'node:assert/strict';
import { exportersUnderTest } from './fixtures/export-traces.mjs';

const { toCpuProfile, fromCpuProfile } = exportersUnderTest();
const trace = (times) => ({
  resources: ['file:///srv/app.js'],
  frames: [{ name: 'tick', resourceId: 0, line: 3, column: 7 }],
  stacks: [{ frameId: 0 }],
  samples: times.map((timestamp) => ({ stackId: 0, timestamp })),
});

test('gaps of 35.8 minutes, 50 minutes and 30 days come back to the µs', () => {
  const gap = 2 ** 31 / 1000; // ms
  const times = [1, 1 + gap, 2 + 2 * gap, 2 + 2 * gap + 3e6, 2 + 2 * gap + 3e6 + 30 * 86400e3];
  const cp = toCpuProfile(trace(times));
  assert.ok(cp.timeDeltas.some((d) => d >= 2 ** 31));
  const back = fromCpuProfile(cp);
  assert.deepEqual(
    back.samples.map((s) => s.timestamp),
    times,
  );
  assert.deepEqual(back.frames, [{ column: 7, line: 3, name: 'tick', resourceId: 0 }]);
});

test('a written .cpuprofile with a delta past 2^31 µs imports (JSON text too)', () => {
  const p = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2] },
      {
        id: 2,
        callFrame: { functionName: 'f', url: 'file:///a.js', lineNumber: 0, columnNumber: 0 },
      },
    ],
    startTime: 5e9,
    endTime: 5e9 + 4e9 + 1000,
    samples: [2, 2, 2],
    timeDeltas: [0, 4e9, -5],
  };
  const t = fromCpuProfile(JSON.stringify(p));
  assert.deepEqual(
    t.samples.map((s) => s.timestamp),
    [5e6, 9e6 - 0.005, 9e6],
  );
});

test('a delta that is not a finite number is still refused, by index', () => {
  const p = toCpuProfile(trace([1, 2]));
  p.timeDeltas[1] = Number.POSITIVE_INFINITY;
  assert.throws(() => fromCpuProfile(p), {
    name: 'TypeError',
    message: /profile\.timeDeltas\[1\] must be a finite number of µs/,
  });
});
