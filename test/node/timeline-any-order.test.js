// Entries added in the orders real code produces (nested spans that end outer-last, measures
// from a pool of marks, marks with past startTimes) come back in startTime order from every
// query, as the same objects, and a mark name converts to its latest mark by startTime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from '../../glue/index.js';

const sorted = (list) => list.every((e, i) => i === 0 || list[i - 1].startTime <= e.startTime);

test('nested measures (the outer span added last) are returned in startTime order', () => {
  performance.clearMeasures();
  const made = [];
  for (let i = 0; i < 2000; i++) {
    const t = i * 10;
    made.push(performance.measure('inner', { start: t + 2, end: t + 3 }));
    made.push(performance.measure('middle', { start: t + 1, end: t + 4 }));
    made.push(performance.measure('outer', { start: t, end: t + 5 }));
  }
  const all = performance.getEntriesByType('measure');
  assert.equal(all.length, 6000);
  assert.ok(sorted(all));
  assert.equal(all[0], made[2], 'the first outer span comes first');
  assert.equal(all[1], made[1]);
  assert.equal(all[2], made[0]);
  const outer = performance.getEntriesByName('outer');
  assert.equal(outer.length, 2000);
  assert.ok(sorted(outer));
  assert.equal(outer[1999], made[5999]);
  performance.clearMeasures();
});

test('measures from a pool of marks interleave with the marks in startTime order', () => {
  performance.clearMarks();
  performance.clearMeasures();
  const names = Array.from({ length: 100 }, (_, i) => `pool-${i}`);
  for (let i = 0; i < 1000; i++) performance.mark(names[i % 100], { startTime: i });
  for (let i = 0; i < 3000; i++)
    performance.measure('from-pool', names[(i * 37) % 100], names[(i * 11) % 100]);
  const measures = performance.getEntriesByName('from-pool', 'measure');
  assert.equal(measures.length, 3000);
  assert.ok(sorted(measures));
  assert.equal(measures[0].startTime, 900, 'pool-0 converts to its latest mark');
  const all = performance
    .getEntries()
    .filter((e) => e.entryType === 'mark' || e.entryType === 'measure');
  assert.equal(all.length, 4000);
  assert.ok(sorted(all));
  // Ties keep insertion order: the mark at 950 was added before every measure starting there.
  const at950 = all.filter((e) => e.startTime === 950);
  assert.equal(at950[0].entryType, 'mark');
  assert.ok(at950.slice(1).every((e) => e.entryType === 'measure'));
  performance.clearMarks();
  performance.clearMeasures();
});

test('marks with past startTimes in any order; a name converts to its latest mark', () => {
  performance.clearMarks();
  const times = [];
  for (let i = 0; i < 5000; i++) times.push((i * 7919) % 5000);
  for (const t of times) performance.mark(t % 2 ? 'odd' : 'even', { startTime: t });
  performance.mark('odd', { startTime: 1 }); // added last, but not the latest by startTime
  const marks = performance.getEntriesByType('mark');
  assert.deepEqual(marks.map((e) => e.startTime).slice(0, 4), [0, 1, 1, 2]);
  assert.ok(sorted(marks));
  assert.ok(sorted(performance.getEntriesByName('odd')));
  assert.equal(performance.measure('to-odd', 'odd').startTime, 4999);
  assert.equal(performance.measure('to-even', { start: 'even', end: 'odd' }).duration, 4999 - 4998);
  // Clearing one name between out-of-order adds leaves the rest sorted and complete.
  performance.clearMarks('even');
  for (let i = 0; i < 100; i++) performance.mark('even', { startTime: 100 - i });
  assert.equal(performance.getEntriesByType('mark').length, 2501 + 100);
  assert.ok(sorted(performance.getEntriesByType('mark')));
  assert.equal(performance.getEntriesByName('even')[0].startTime, 1);
  performance.clearMarks();
  performance.clearMeasures();
});
