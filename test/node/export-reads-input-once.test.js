// The exporters and fromCpuProfile read each member of their input once (the trace's lists,
// each element, each element's members), as WebIDL's dictionary conversion does: a getter runs
// once and a Proxy sees one get per member, so an input cannot change between checks and use.
import test from 'node:test';
import assert from 'node:assert/strict';
import { exportersUnderTest, HAND_BUILT } from './fixtures/export-traces.mjs';

const ex = exportersUnderTest();

/** `value` with every object in it behind a Proxy that counts its gets, by path. */
function counted(value, reads, path = '') {
  if (value === null || typeof value !== 'object') return value;
  return new Proxy(value, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof key === 'symbol' || (Array.isArray(target) && key === 'length')) return v;
      const at = `${path}.${key}`;
      reads.set(at, (reads.get(at) || 0) + 1);
      return counted(v, reads, at);
    },
  });
}
const twice = (reads) => [...reads].filter(([, n]) => n > 1).map(([at]) => at);

for (const op of ['toCpuProfile', 'toSpeedscope', 'toTraceEvents', 'toFirefoxProfile']) {
  test(`${op} reads each member of the trace once`, () => {
    const reads = new Map();
    const trace = { ...HAND_BUILT.GC_MARKERS, frames: HAND_BUILT.SHARED_PREFIXES.frames };
    trace.resources = HAND_BUILT.SHARED_PREFIXES.resources;
    ex[op](counted(trace, reads));
    assert.deepEqual(twice(reads), []);
    assert.equal(reads.get('.samples'), 1);
    assert.equal(reads.get('.samples.0.timestamp'), 1);
  });
}

test('fromCpuProfile reads each member of the profile once', () => {
  const reads = new Map();
  const p = ex.toCpuProfile(HAND_BUILT.SHARED_PREFIXES);
  ex.fromCpuProfile(counted(p, reads), { offsetMs: 0 });
  assert.deepEqual(twice(reads), []);
  for (const at of ['.samples', '.timeDeltas', '.nodes', '.startTime', '.nodes.1.callFrame.url'])
    assert.equal(reads.get(at), 1, at);
});
