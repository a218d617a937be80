// fromCpuProfile's sample time is µs / 1000 - offsetMs: an offset (or a startTime plus deltas)
// that leaves the doubles once in µs (offsetMs: 1e306 is 1e309 µs) is a TypeError naming the
// sample, never every sample silently dropped; large finite offsets keep every sample.
import test from 'node:test';
import assert from 'node:assert/strict';
import { exportersUnderTest } from './fixtures/export-traces.mjs';

const { fromCpuProfile } = exportersUnderTest();
const profile = (startTime, timeDeltas) => ({
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2] },
    { id: 2, callFrame: { functionName: 'f', url: 'file:///a.js' } },
  ],
  startTime,
  samples: timeDeltas.map(() => 2),
  timeDeltas,
});

test('offsetMs: 1e306 (1e309 µs) is a TypeError, not an empty trace', () => {
  for (const offsetMs of [1e306, -1e306, 1.7e305 * 2])
    assert.throws(() => fromCpuProfile(profile(1000, [0, 1000]), { offsetMs }), {
      name: 'TypeError',
      message: /the time of profile\.samples\[0\] .* is not a finite number/,
    });
});

test('a startTime plus deltas past the doubles is a TypeError naming the sample', () => {
  assert.throws(() => fromCpuProfile(profile(1.5e308, [0, 1e308])), {
    name: 'TypeError',
    message: /the time of profile\.samples\[1\]/,
  });
});

test('a large finite offset keeps every sample', () => {
  const t = fromCpuProfile(profile(1000, [0, 1000, 1000]), { offsetMs: 1e300 });
  assert.equal(t.samples.length, 3);
  for (const s of t.samples) assert.equal(s.timestamp, -1e300);
  const u = fromCpuProfile(profile(1000, [0, 1000]), { offsetMs: -1e9 });
  assert.deepEqual(
    u.samples.map((s) => s.timestamp),
    [1e9 + 1, 1e9 + 2],
  );
});
