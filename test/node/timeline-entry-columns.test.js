// Entry objects read their values from column chunks: identity across queries, values kept by
// entries cleared by name while the core reuses their slots, by entries of a dropped chunk,
// by entries a full buffer did not keep, and by entries user code constructs.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { performance, PerformanceMark, setBufferLimit } from '../../glue/index.js';

const snapshot = (e) => JSON.stringify(e.toJSON());

beforeEach(() => {
  setBufferLimit('mark', 0);
  setBufferLimit('measure', 0);
  performance.clearMarks();
  performance.clearMeasures();
});

test('mark() and measure() return the objects the queries return, across chunks', () => {
  const marks = [];
  for (let i = 0; i < 9000; i++) marks.push(performance.mark(`n${i % 7}`, { startTime: i }));
  const m = performance.measure('span', 'n1', 'n2');
  const byName = performance.getEntriesByName('n3');
  assert.equal(byName.length, Math.ceil((9000 - 3) / 7));
  for (const e of byName) assert.equal(e, marks[e.startTime]);
  const all = performance.getEntriesByType('mark');
  for (let i = 0; i < all.length; i += 997) assert.equal(all[i], marks[i]);
  assert.equal(performance.getEntriesByName('span')[0], m);
});

test('entries cleared by name keep their values while new entries reuse their slots', () => {
  const held = [];
  for (let i = 0; i < 6000; i++)
    held.push(performance.mark(i % 2 ? 'odd' : 'even', { startTime: i, detail: { i } }));
  const measures = [];
  for (let i = 0; i < 50; i++) measures.push(performance.measure('gone', { start: i, end: 2 * i }));
  const before = held.map(snapshot);
  const measuresBefore = measures.map(snapshot);
  performance.clearMarks('odd');
  performance.clearMeasures('gone');
  // The freed slots are handed out again: the new entries must not show through the old ones.
  for (let i = 0; i < 3000; i++) performance.mark('new', { startTime: 1e6 + i });
  for (let i = 0; i < 50; i++) performance.measure('other', { start: 1, duration: 99 });
  assert.deepEqual(held.map(snapshot), before);
  assert.deepEqual(measures.map(snapshot), measuresBefore);
  assert.equal(held[1].detail.i, 1);
  assert.equal(performance.getEntriesByName('odd').length, 0);
  assert.equal(performance.getEntriesByName('even').length, 3000);
  assert.equal(performance.getEntriesByName('new').length, 3000);
  for (const e of performance.getEntriesByName('new')) assert.equal(e.detail, null);
});

test('a slot reused by an entry without detail does not show the old detail', () => {
  performance.mark('a', { detail: 'old' });
  performance.clearMarks('a');
  const b = performance.mark('b');
  assert.equal(b.detail, null);
  assert.equal(performance.getEntriesByName('b')[0].detail, null);
});

test('entries held across clearMarks() keep their values while the buffer fills again', () => {
  const held = [];
  for (let i = 0; i < 5000; i++) held.push(performance.mark('x', { startTime: i, detail: i }));
  const before = held.map(snapshot);
  performance.clearMarks();
  for (let i = 0; i < 5000; i++) performance.mark('y', { startTime: 7 + i, detail: 'y' });
  assert.deepEqual(held.map(snapshot), before);
  assert.equal(performance.getEntriesByType('mark')[0].name, 'y');
});

test('an entry a full buffer does not keep is still a complete entry', () => {
  setBufferLimit('mark', 1);
  const kept = performance.mark('kept', { startTime: 1 });
  const dropped = performance.mark('dropped', { startTime: 2, detail: [1, 2] });
  assert.deepEqual(performance.getEntriesByType('mark'), [kept]);
  assert.deepEqual(dropped.toJSON(), {
    name: 'dropped',
    entryType: 'mark',
    startTime: 2,
    duration: 0,
    detail: [1, 2],
  });
});

test('constructed PerformanceMarks are not buffered and keep their own values', () => {
  const made = [];
  for (let i = 0; i < 5000; i++)
    made.push(new PerformanceMark(`c${i}`, { startTime: i, detail: i }));
  assert.equal(performance.getEntriesByType('mark').length, 0);
  assert.equal(made[4321].name, 'c4321');
  assert.equal(made[4321].startTime, 4321);
  assert.equal(made[4321].detail, 4321);
  assert.equal(made[4321].duration, 0);
  assert.equal(made[4321].entryType, 'mark');
});
