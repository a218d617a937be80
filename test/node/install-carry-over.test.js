// Installing after the host already buffered marks and measures: they are carried over (same
// name, startTime, duration, detail, in time order) into perfshim's timeline, so measure() can
// use them and the queries list them once. Own process; perfshim is imported only after the
// native entries are made.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const nativeProto = Object.getPrototypeOf(globalThis.performance);
const nativeMark = nativeProto.mark;
const NativeMark = globalThis.PerformanceMark;

const pre1 = performance.mark('pre', { startTime: 5, detail: { from: 'native' } });
performance.mark('pre2', { startTime: 2 });
const preMeasure = performance.measure('pre-measure', { start: 3, end: 9, detail: [1, 2] });
const pre3 = performance.mark('pre', { startTime: 7 });

const { installed } = await import('../../glue/auto.js');

test('the host entries were native ones (sanity)', () => {
  assert.ok(installed.installed.includes('timeline'));
  assert.ok(pre1 instanceof NativeMark);
  assert.notEqual(globalThis.PerformanceMark, NativeMark);
  assert.notEqual(performance.mark, nativeMark);
});

test('native marks made before install are in the new timeline with their values', () => {
  const pre = performance.getEntriesByName('pre', 'mark');
  assert.equal(pre.length, 2);
  assert.deepEqual(
    pre.map((e) => e.startTime),
    [5, 7],
  );
  assert.deepEqual(pre[0].detail, { from: 'native' });
  assert.equal(pre[1].detail, null);
  assert.equal(pre[0].entryType, 'mark');
  assert.equal(pre[0].duration, 0);
  assert.ok(
    pre[0] instanceof globalThis.PerformanceMark,
    'carried-over marks are perfshim PerformanceMarks',
  );
});

test('native measures made before install are carried over too', () => {
  const list = performance.getEntriesByName('pre-measure');
  assert.equal(list.length, 1);
  const m = list[0];
  assert.equal(m.entryType, 'measure');
  assert.equal(m.startTime, preMeasure.startTime);
  assert.equal(m.duration, 6);
  assert.deepEqual(m.detail, [1, 2]);
  assert.ok(m instanceof globalThis.PerformanceMeasure);
});

test('carried-over entries are listed once, in time order with new ones', () => {
  const marks = performance.getEntriesByType('mark');
  assert.deepEqual(
    marks.map((e) => `${e.name}@${e.startTime}`),
    ['pre2@2', 'pre@5', 'pre@7'],
  );
  const later = performance.mark('post', { startTime: 6 });
  const all = performance
    .getEntries()
    .filter((e) => e.entryType === 'mark' || e.entryType === 'measure');
  assert.deepEqual(
    all.map((e) => `${e.entryType}:${e.name}`),
    ['mark:pre2', 'measure:pre-measure', 'mark:pre', 'mark:post', 'mark:pre'],
  );
  assert.equal(all[3], later);
});

test('measure() can use the carried-over marks (the most recent of a name)', () => {
  const m = performance.measure('uses-pre', 'pre2', 'pre');
  assert.equal(m.startTime, 2);
  assert.equal(m.duration, 5, 'pre@7 is the most recent mark named pre');
});

test('clearMarks() clears carried-over marks', () => {
  performance.clearMarks('pre');
  assert.deepEqual(performance.getEntriesByName('pre'), []);
  assert.equal(performance.getEntriesByName('pre2').length, 1);
});

test('a buffered observer sees the carried-over measure', async () => {
  const seen = [];
  const po = new PerformanceObserver((list) => seen.push(...list.getEntries().map((e) => e.name)));
  po.observe({ type: 'measure', buffered: true });
  await new Promise((r) => setTimeout(() => setImmediate(r), 10)); // after the observer's task
  po.disconnect();
  assert.ok(seen.includes('pre-measure'), JSON.stringify(seen));
});

test('the entries returned before install keep working', () => {
  assert.equal(pre3.startTime, 7);
  assert.equal(pre1.name, 'pre');
});
