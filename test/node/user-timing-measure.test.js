// User Timing 3: every form of performance.measure() that succeeds (WPT
// user-timing/measure-l3.any.js, measure_syntax_err, measure-with-dict.any.js).
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { performance, PerformanceMeasure, PerformanceEntry } from '../../glue/index.js';

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
});

function between(value, lo, hi, what) {
  assert.ok(value >= lo && value <= hi, `${what}: expected ${lo} <= ${value} <= ${hi}`);
}

test('measure(name) spans from 0 to now', () => {
  const before = performance.now();
  const m = performance.measure('m');
  const after = performance.now();
  assert.ok(m instanceof PerformanceMeasure);
  assert.ok(m instanceof PerformanceEntry);
  assert.equal(m.name, 'm');
  assert.equal(m.entryType, 'measure');
  assert.equal(m.startTime, 0);
  between(m.duration, before, after, 'duration');
  assert.equal(m.detail, null);
});

test('measure(name, undefined), (name, null) and (name, {}) span from 0 to now', () => {
  for (const arg of [undefined, null, {}]) {
    const before = performance.now();
    const m = performance.measure('m0', arg);
    assert.equal(m.startTime, 0);
    between(m.duration, before, performance.now(), `measure('m0', ${JSON.stringify(arg)})`);
  }
});

test('measure is buffered: the returned object is in the buffer', () => {
  const m = performance.measure('buf');
  assert.deepEqual(performance.getEntriesByName('buf'), [m]);
  assert.deepEqual(performance.getEntriesByType('measure'), [m]);
});

test('measure(name, startMark) spans from the mark to now', () => {
  const a = performance.mark('a', { startTime: 1 });
  const before = performance.now();
  const m = performance.measure('m', 'a');
  assert.equal(m.startTime, a.startTime);
  between(m.duration + m.startTime, before, performance.now(), 'end');
});

test('measure(name, startMark, endMark) spans between the marks', () => {
  performance.mark('a', { startTime: 10 });
  performance.mark('b', { startTime: 25.5 });
  const m = performance.measure('m', 'a', 'b');
  assert.equal(m.startTime, 10);
  assert.equal(m.duration, 15.5);
});

test('measure(name, startMark, endMark) with the end before the start has a negative duration', () => {
  performance.mark('a', { startTime: 30 });
  performance.mark('b', { startTime: 20 });
  const m = performance.measure('m', 'a', 'b');
  assert.equal(m.startTime, 30);
  assert.equal(m.duration, -10);
});

test('measure(name, undefined, endMark) spans from 0 to the end mark', () => {
  performance.mark('b', { startTime: 42 });
  const m = performance.measure('m', undefined, 'b');
  assert.equal(m.startTime, 0);
  assert.equal(m.duration, 42);
});

test('measure(name, {}, endMark) and (name, null, endMark): an empty dictionary allows endMark', () => {
  performance.mark('b', { startTime: 42 });
  for (const arg of [{}, null, { detail: undefined }]) {
    const m = performance.measure('m', arg, 'b');
    assert.equal(m.startTime, 0);
    assert.equal(m.duration, 42);
  }
});

test('measure(name, startMark, undefined): an undefined endMark is not given', () => {
  performance.mark('a', { startTime: 3 });
  const before = performance.now();
  const m = performance.measure('m', 'a', undefined);
  assert.equal(m.startTime, 3);
  between(m.startTime + m.duration, before, performance.now(), 'end');
});

test('measure uses the mark of a name with the latest startTime, as Chromium and Firefox do', () => {
  performance.mark('a', { startTime: 5 });
  performance.mark('a', { startTime: 50 });
  performance.mark('b', { startTime: 100 });
  performance.mark('b', { startTime: 60 });
  const m = performance.measure('m', 'a', 'b');
  assert.equal(m.startTime, 50, 'a@50, the latest a');
  assert.equal(m.duration, 50, 'b@100, the latest b, though b@60 was added after it');
  assert.deepEqual([performance.measure('m2', { start: 'a', end: 'b' }).startTime], [50]);
});

test('measure after clearMarks(name) falls back to nothing (SyntaxError), after re-mark uses the new one', () => {
  performance.mark('a', { startTime: 5 });
  performance.clearMarks('a');
  assert.throws(
    () => performance.measure('m', 'a'),
    (e) => e instanceof DOMException && e.name === 'SyntaxError',
  );
  performance.mark('a', { startTime: 7 });
  assert.equal(performance.measure('m', 'a', 'a').startTime, 7);
});

test('measure(name, {start}) with a timestamp spans from start to now', () => {
  const before = performance.now();
  const m = performance.measure('m', { start: 2 });
  assert.equal(m.startTime, 2);
  between(m.startTime + m.duration, before, performance.now(), 'end');
});

test('measure(name, {start}) with a mark name', () => {
  performance.mark('a', { startTime: 4 });
  const before = performance.now();
  const m = performance.measure('m', { start: 'a' });
  assert.equal(m.startTime, 4);
  between(m.startTime + m.duration, before, performance.now(), 'end');
});

test('measure(name, {end}) with a timestamp spans from 0 to end', () => {
  const m = performance.measure('m', { end: 12 });
  assert.equal(m.startTime, 0);
  assert.equal(m.duration, 12);
});

test('measure(name, {end}) with a mark name', () => {
  performance.mark('b', { startTime: 8 });
  const m = performance.measure('m', { end: 'b' });
  assert.equal(m.startTime, 0);
  assert.equal(m.duration, 8);
});

test('measure(name, {start, end}) with timestamps, mark names and a mix', () => {
  performance.mark('a', { startTime: 10 });
  performance.mark('b', { startTime: 30 });
  let m = performance.measure('m', { start: 1, end: 4 });
  assert.deepEqual([m.startTime, m.duration], [1, 3]);
  m = performance.measure('m', { start: 'a', end: 'b' });
  assert.deepEqual([m.startTime, m.duration], [10, 20]);
  m = performance.measure('m', { start: 'a', end: 50 });
  assert.deepEqual([m.startTime, m.duration], [10, 40]);
  m = performance.measure('m', { start: 0, end: 'b' });
  assert.deepEqual([m.startTime, m.duration], [0, 30]);
});

test('measure(name, {start, end}) with start after end has a negative duration', () => {
  const m = performance.measure('m', { start: 20, end: 5 });
  assert.equal(m.startTime, 20);
  assert.equal(m.duration, -15);
});

test('measure(name, {start, duration})', () => {
  let m = performance.measure('m', { start: 5, duration: 10 });
  assert.deepEqual([m.startTime, m.duration], [5, 10]);
  performance.mark('a', { startTime: 7 });
  m = performance.measure('m', { start: 'a', duration: 3 });
  assert.deepEqual([m.startTime, m.duration], [7, 3]);
  m = performance.measure('m', { start: 5, duration: 0 });
  assert.deepEqual([m.startTime, m.duration], [5, 0]);
});

test('measure(name, {duration, end})', () => {
  let m = performance.measure('m', { duration: 4, end: 10 });
  assert.deepEqual([m.startTime, m.duration], [6, 4]);
  performance.mark('b', { startTime: 20 });
  m = performance.measure('m', { duration: 5, end: 'b' });
  assert.deepEqual([m.startTime, m.duration], [15, 5]);
});

test('measure(name, {duration, end}) with duration larger than end gives a negative start time', () => {
  // The spec computes end - duration and applies no check to the result.
  const m = performance.measure('m', { duration: 10, end: 4 });
  assert.equal(m.startTime, -6);
  assert.equal(m.duration, 10);
});

test('measure start and end 0 are valid timestamps, not absent members', () => {
  const m = performance.measure('m', { start: 0, end: 0 });
  assert.deepEqual([m.startTime, m.duration], [0, 0]);
  const n = performance.measure('n', { end: 0 });
  assert.deepEqual([n.startTime, n.duration], [0, 0]);
});

test('measure with a mark whose startTime is 0', () => {
  performance.mark('zero', { startTime: 0 });
  performance.mark('b', { startTime: 9 });
  const m = performance.measure('m', 'zero', 'b');
  assert.deepEqual([m.startTime, m.duration], [0, 9]);
});

test('measure detail is a structured clone, null when absent or undefined', () => {
  const detail = { x: { y: [1] } };
  const m = performance.measure('m', { start: 0, detail });
  assert.notEqual(m.detail, detail);
  assert.deepEqual(m.detail, detail);
  assert.equal(m.detail, m.detail);
  assert.equal(performance.measure('m', { start: 0 }).detail, null);
  assert.equal(performance.measure('m', { start: 0, detail: undefined }).detail, null);
  assert.equal(performance.measure('m', { start: 0, detail: null }).detail, null);
  assert.equal(performance.measure('m').detail, null);
  assert.equal(performance.measure('m', { end: 1, detail: 7 }).detail, 7);
});

test('measure with string start/end: the string form is a mark name, even when numeric', () => {
  performance.mark('5', { startTime: 100 });
  const m = performance.measure('m', { start: '5', end: 200 });
  assert.equal(m.startTime, 100, "'5' names the mark, it is not the timestamp 5");
  const n = performance.measure('n', '5');
  assert.equal(n.startTime, 100);
});

test('measure: a number as startOrMeasureOptions is converted to a mark name', () => {
  performance.mark('12', { startTime: 3 });
  const m = performance.measure('m', 12);
  assert.equal(m.startTime, 3);
});

test('measure: a boolean start is a mark name (DOMString in the union), not 1', () => {
  performance.mark('true', { startTime: 9 });
  const m = performance.measure('m', { start: true, end: 10 });
  assert.equal(m.startTime, 9);
});

test('measure options members are read in order detail, duration, end, start, once each', () => {
  const log = [];
  const options = {
    get start() {
      log.push('start');
      return 1;
    },
    get end() {
      log.push('end');
      return 3;
    },
    get detail() {
      log.push('detail');
      return undefined;
    },
    get duration() {
      log.push('duration');
      return undefined;
    },
  };
  const m = performance.measure('m', options);
  assert.deepEqual(log, ['detail', 'duration', 'end', 'start']);
  assert.deepEqual([m.startTime, m.duration], [1, 2]);
});

test('measure with a PerformanceTiming name throws TypeError in Node even when such a mark exists', () => {
  // In Node (not a Window) the PerformanceTiming names are special in measure even if a mark exists.
  performance.mark('domComplete', { startTime: 1 });
  assert.throws(
    () => performance.measure('m', 'domComplete'),
    (e) => e instanceof TypeError && e.name === 'TypeError',
  );
});

test('measure(name, startMark) with a future mark gives a negative duration', () => {
  performance.mark('future', { startTime: performance.now() + 1e6 });
  const m = performance.measure('m', 'future');
  assert.ok(m.duration < 0);
});
