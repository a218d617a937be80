// WebIDL `double` conversion of a BigInt throws TypeError: mark() and new PerformanceMark() with
// startTime 10n (or an object whose valueOf gives a BigInt), measure()'s duration 10n; nothing
// is buffered. (measure()'s start/end are (DOMString or double): a BigInt becomes a mark name.)
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { performance, PerformanceMark } from '../../glue/index.js';

const throwsType = (fn) =>
  assert.throws(
    fn,
    (e) => e instanceof TypeError && e.name === 'TypeError' && /BigInt/.test(e.message),
  );

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
});

test('mark(name, { startTime: 10n }) throws TypeError and buffers nothing', () => {
  throwsType(() => performance.mark('big', { startTime: 10n }));
  throwsType(() => performance.mark('big', { startTime: { valueOf: () => 10n } }));
  assert.equal(performance.getEntriesByName('big').length, 0);
});

test('new PerformanceMark(name, { startTime: 10n }) throws TypeError', () => {
  throwsType(() => new PerformanceMark('big', { startTime: 10n }));
  throwsType(() => new PerformanceMark('big', { startTime: 0n }));
});

test('measure(name, { start: 0, duration: 10n }) throws TypeError', () => {
  throwsType(() => performance.measure('big', { start: 0, duration: 10n }));
  assert.equal(performance.getEntriesByName('big').length, 0);
});

test('measure(name, { start: 10n }) looks up the mark "10", as the (DOMString or double) union does', () => {
  assert.throws(
    () => performance.measure('big', { start: 10n }),
    (e) => e instanceof DOMException && e.name === 'SyntaxError' && e.message.includes("'10'"),
  );
  performance.mark('10', { startTime: 3 });
  assert.equal(performance.measure('big', { start: 10n, end: 5 }).startTime, 3);
});
