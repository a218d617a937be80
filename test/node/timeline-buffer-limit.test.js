// perfshim's extension: a cap on the 'mark' and 'measure' buffers (setBufferLimit), with the
// dropped entries counted as the Performance Timeline's "determine if a performance entry buffer
// is full" says: droppedEntries(type) and the observers' droppedEntriesCount. A dropped entry is
// still returned and still queued to observers (queue a PerformanceEntry appends to observer
// buffers before the buffer-full check).
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  performance,
  PerformanceObserver,
  setBufferLimit,
  droppedEntries,
} from '../../glue/index.js';

// The observer's task is an immediate queued before the wait: a timer can fire before it (a
// loaded machine, or Node >= 22's test runner on a stale loop time), the immediate after it cannot.
const tick = () => new Promise((r) => setTimeout(() => setImmediate(r), 10));

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
});
afterEach(() => {
  setBufferLimit('mark', 0);
  setBufferLimit('measure', 0);
});

test('marks past the limit are not buffered and are counted as dropped', () => {
  const before = droppedEntries('mark');
  setBufferLimit('mark', 3);
  const made = [];
  for (let i = 0; i < 5; i++) made.push(performance.mark(`m${i}`, { startTime: i }));
  assert.deepEqual(
    performance.getEntriesByType('mark').map((e) => e.name),
    ['m0', 'm1', 'm2'],
  );
  assert.equal(droppedEntries('mark') - before, 2);
  assert.equal(made[4].name, 'm4', 'mark() still returns the dropped entry');
  assert.equal(made[4].entryType, 'mark');
  assert.deepEqual(performance.getEntriesByName('m4'), []);
});

test('the measure limit is separate from the mark limit', () => {
  const beforeMark = droppedEntries('mark');
  const beforeMeasure = droppedEntries('measure');
  setBufferLimit('measure', 1);
  performance.measure('s1');
  performance.measure('s2');
  for (let i = 0; i < 10; i++) performance.mark('free');
  assert.equal(performance.getEntriesByType('measure').length, 1);
  assert.equal(performance.getEntriesByType('mark').length, 10);
  assert.equal(droppedEntries('measure') - beforeMeasure, 1);
  assert.equal(droppedEntries('mark') - beforeMark, 0);
});

test('a dropped mark cannot be used by measure (it is not in the buffer)', () => {
  setBufferLimit('mark', 1);
  performance.mark('kept', { startTime: 1 });
  performance.mark('dropped', { startTime: 2 });
  assert.throws(
    () => performance.measure('m', 'dropped'),
    (e) => e instanceof DOMException && e.name === 'SyntaxError',
  );
  assert.equal(performance.measure('m', 'kept', 'kept').startTime, 1);
});

test('clearing makes room again; the dropped count is not reset by clearing', () => {
  const before = droppedEntries('mark');
  setBufferLimit('mark', 2);
  performance.mark('a');
  performance.mark('b');
  performance.mark('c');
  assert.equal(droppedEntries('mark') - before, 1);
  performance.clearMarks('a');
  performance.mark('d');
  assert.deepEqual(
    performance.getEntriesByType('mark').map((e) => e.name),
    ['b', 'd'],
  );
  performance.clearMarks();
  performance.mark('e');
  performance.mark('f');
  assert.deepEqual(
    performance.getEntriesByType('mark').map((e) => e.name),
    ['e', 'f'],
  );
  assert.equal(droppedEntries('mark') - before, 1);
});

test('limit 0 means unbounded', () => {
  setBufferLimit('mark', 1);
  setBufferLimit('mark', 0);
  for (let i = 0; i < 1000; i++) performance.mark('u');
  assert.equal(performance.getEntriesByType('mark').length, 1000);
});

test('dropped entries still reach observers, and droppedEntriesCount reports the drops', async () => {
  setBufferLimit('mark', 2);
  const base = droppedEntries('mark') + droppedEntries('measure');
  const calls = [];
  const po = new PerformanceObserver((list, obs, options) =>
    calls.push({ names: list.getEntries().map((e) => e.name), options }),
  );
  po.observe({ entryTypes: ['mark', 'measure'] });
  for (let i = 0; i < 5; i++) performance.mark(`o${i}`, { startTime: i });
  await tick();
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].names, ['o0', 'o1', 'o2', 'o3', 'o4'], 'the observer sees every entry');
  assert.equal(calls[0].options.droppedEntriesCount, base + 3);
  performance.mark('later');
  await tick();
  assert.equal('droppedEntriesCount' in calls[1].options, false);
  po.disconnect();
});

test('droppedEntriesCount counts only the observed types', async () => {
  setBufferLimit('measure', 1);
  performance.measure('s1');
  performance.measure('s2');
  performance.measure('s3');
  const markDropped = droppedEntries('mark');
  let opts;
  const po = new PerformanceObserver((l, o, options) => {
    opts = options;
  });
  po.observe({ type: 'mark' });
  performance.mark('x');
  await tick();
  assert.equal(
    opts.droppedEntriesCount,
    markDropped,
    'measure drops are not counted for a mark observer',
  );
  po.disconnect();
  let opts2;
  const po2 = new PerformanceObserver((l, o, options) => {
    opts2 = options;
  });
  po2.observe({ type: 'measure', buffered: true });
  await tick();
  assert.equal(opts2.droppedEntriesCount, droppedEntries('measure'));
  assert.ok(opts2.droppedEntriesCount >= 2);
  po2.disconnect();
});

test('setBufferLimit rejects unknown types with TypeError', () => {
  for (const type of ['resource', 'Mark', '', undefined, 'function']) {
    assert.throws(
      () => setBufferLimit(type, 1),
      (e) => e instanceof TypeError,
      String(type),
    );
  }
});

test('setBufferLimit rejects bad limits with RangeError', () => {
  for (const n of [-1, 1.5, NaN, Infinity, 2 ** 32, 'abc']) {
    assert.throws(
      () => setBufferLimit('mark', n),
      (e) => e instanceof RangeError,
      String(n),
    );
  }
  // Nothing changed: still unbounded.
  for (let i = 0; i < 3; i++) performance.mark('ok');
  assert.equal(performance.getEntriesByType('mark').length, 3);
});

test('droppedEntries returns a number, 0 for a type perfshim does not buffer', () => {
  assert.equal(typeof droppedEntries('mark'), 'number');
  assert.equal(droppedEntries('resource'), 0);
});
