// clearMarks() / clearMeasures() with no name drop a whole type at once: nothing is allocated
// (the core's memory never grows during a clear), the other type stays, entries already handed
// out keep their values, and the buffer works again right after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createCore } from '../../glue/host/loader.js';
import { performance } from '../../glue/index.js';

test('clearing every mark never grows the core memory, and a refill reuses it', () => {
  // A core of its own (the build PERFSHIM_WASM names, like the suites), so earlier tests' big
  // result buffers do not hide an allocation.
  const path = process.env.PERFSHIM_WASM;
  const core = path ? createCore(new Uint8Array(readFileSync(path))) : createCore();
  const x = core.x;
  const id = x.ps_timeline_name_new();
  const fill = (t0) => {
    for (let i = 0; i < 400000; i++)
      if (x.ps_timeline_add(0, id, t0 + i, 0) < 0) assert.fail(`add ${i}`);
  };
  fill(0);
  assert.equal(x.ps_timeline_query(0, id), 400000); // the result buffer takes its room now
  const before = core.memory.buffer.byteLength;
  for (let round = 1; round <= 3; round++) {
    assert.equal(x.ps_timeline_clear(0, -1), 400000);
    assert.equal(core.memory.buffer.byteLength, before, 'the clear allocated no memory');
    assert.equal(x.ps_timeline_query(0, -1), 0);
    assert.equal(x.ps_timeline_query(0, id), 0);
    fill(round * 1e6);
    assert.equal(core.memory.buffer.byteLength, before, 'the refill grew no memory');
    assert.equal(x.ps_timeline_query(0, id), 400000);
  }
});

test('clearMarks() leaves measures, and handed-out entries keep their values', () => {
  performance.clearMarks();
  performance.clearMeasures();
  const marks = [];
  for (let i = 0; i < 50000; i++)
    marks.push(performance.mark(`m${i % 10}`, { startTime: i, detail: i }));
  const span = performance.measure('span', 'm1', 'm9');
  performance.clearMarks();
  assert.equal(performance.getEntriesByType('mark').length, 0);
  assert.equal(performance.getEntriesByName('m1').length, 0);
  assert.deepEqual(
    performance.getEntries().filter((e) => e.entryType === 'measure'),
    [span],
  );
  assert.equal(marks[123].startTime, 123);
  assert.equal(marks[123].name, 'm3');
  assert.equal(marks[123].detail, 123);
  assert.throws(
    () => performance.measure('gone', 'm1'),
    (e) => e instanceof DOMException && e.name === 'SyntaxError',
  );
  const again = performance.mark('m1', { startTime: 5 });
  assert.deepEqual(performance.getEntriesByName('m1'), [again]);
  assert.deepEqual(performance.getEntriesByType('mark'), [again]);
  performance.clearMeasures();
  assert.deepEqual(performance.getEntriesByType('measure'), []);
  assert.deepEqual(performance.getEntriesByType('mark'), [again]);
  performance.clearMarks();
});
