// Performance Timeline 2: getEntries(), getEntriesByType(), getEntriesByName() over the ponyfill's
// buffer (WPT performance-timeline/po-getentries, case-sensitivity, get-invalid-entries,
// user-timing/entry_type, getentriesbytype).
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from '../../glue/index.js';

const ours = (list) => list.filter((e) => e.entryType === 'mark' || e.entryType === 'measure');
const sig = (list) => list.map((e) => `${e.entryType}:${e.name}@${e.startTime}`);
const throwsType = (fn) =>
  assert.throws(fn, (e) => e instanceof TypeError && e.name === 'TypeError');

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
});

test('getEntries sorts by startTime across types, not by insertion', () => {
  performance.mark('c', { startTime: 30 });
  performance.mark('a', { startTime: 10 });
  performance.measure('m', { start: 20, end: 25 });
  performance.mark('b', { startTime: 20.5 });
  performance.measure('z', { start: 5, end: 6 });
  assert.deepEqual(sig(ours(performance.getEntries())), [
    'measure:z@5',
    'mark:a@10',
    'measure:m@20',
    'mark:b@20.5',
    'mark:c@30',
  ]);
});

test('ties in startTime keep insertion order (getEntries, ByType, ByName)', () => {
  const m1 = performance.mark('t', { startTime: 7 });
  const x = performance.measure('t', { start: 7, end: 8 });
  const m2 = performance.mark('t', { startTime: 7 });
  const y = performance.measure('t', { start: 7, end: 9 });
  const m3 = performance.mark('u', { startTime: 7 });
  assert.deepEqual(ours(performance.getEntries()), [m1, x, m2, y, m3]);
  assert.deepEqual(performance.getEntriesByName('t'), [m1, x, m2, y]);
  assert.deepEqual(performance.getEntriesByType('mark'), [m1, m2, m3]);
  assert.deepEqual(performance.getEntriesByType('measure'), [x, y]);
});

test('ties after a sort-breaking insertion still keep insertion order', () => {
  const late = performance.mark('tie', { startTime: 50 });
  const early = performance.mark('tie', { startTime: 10 });
  const late2 = performance.mark('tie', { startTime: 50 });
  const early2 = performance.mark('tie', { startTime: 10 });
  assert.deepEqual(performance.getEntriesByName('tie'), [early, early2, late, late2]);
});

test('getEntriesByType returns only that type, sorted', () => {
  performance.mark('b', { startTime: 2 });
  performance.mark('a', { startTime: 1 });
  performance.measure('m', { start: 0, end: 1 });
  assert.deepEqual(sig(performance.getEntriesByType('mark')), ['mark:a@1', 'mark:b@2']);
  assert.deepEqual(sig(performance.getEntriesByType('measure')), ['measure:m@0']);
});

test('getEntriesByName without a type returns marks and measures of that name, sorted', () => {
  performance.measure('n', { start: 5, end: 6 });
  performance.mark('n', { startTime: 3 });
  performance.mark('other', { startTime: 4 });
  assert.deepEqual(sig(performance.getEntriesByName('n')), ['mark:n@3', 'measure:n@5']);
});

test('getEntriesByName(name, type) filters by both', () => {
  performance.measure('n', { start: 5, end: 6 });
  performance.mark('n', { startTime: 3 });
  assert.deepEqual(sig(performance.getEntriesByName('n', 'mark')), ['mark:n@3']);
  assert.deepEqual(sig(performance.getEntriesByName('n', 'measure')), ['measure:n@5']);
  assert.deepEqual(performance.getEntriesByName('n', 'resource'), []);
  assert.deepEqual(performance.getEntriesByName('n', 'nope'), []);
  assert.deepEqual(
    sig(performance.getEntriesByName('n', undefined)),
    ['mark:n@3', 'measure:n@5'],
    'undefined type = omitted',
  );
});

test('unknown or differently-cased types give an empty array', () => {
  performance.mark('a');
  for (const type of ['nope', 'Mark', 'MARK', 'marks', '', ' mark', 'measure ']) {
    assert.deepEqual(performance.getEntriesByType(type), [], `type ${JSON.stringify(type)}`);
    assert.deepEqual(
      performance.getEntriesByName('a', type),
      [],
      `name a, type ${JSON.stringify(type)}`,
    );
  }
});

test('names are case-sensitive', () => {
  performance.mark('Name');
  assert.deepEqual(performance.getEntriesByName('name'), []);
  assert.equal(performance.getEntriesByName('Name').length, 1);
});

test('queries return the same entry objects every time, in new arrays', () => {
  const a = performance.mark('a');
  const m = performance.measure('m');
  const l1 = performance.getEntriesByType('mark');
  const l2 = performance.getEntriesByType('mark');
  assert.notEqual(l1, l2, 'a new array per call');
  assert.equal(l1[0], l2[0]);
  assert.equal(l1[0], a);
  assert.equal(performance.getEntriesByName('m')[0], m);
  assert.equal(
    ours(performance.getEntries()).find((e) => e.name === 'm'),
    m,
  );
});

test('returned arrays are real, mutable Arrays that do not alias the buffer', () => {
  performance.mark('a');
  performance.mark('b');
  const list = performance.getEntriesByType('mark');
  assert.ok(Array.isArray(list));
  assert.equal(Object.getPrototypeOf(list), Array.prototype);
  list.length = 0;
  list.push('junk');
  assert.equal(performance.getEntriesByType('mark').length, 2);
  const all = performance.getEntries();
  all.pop();
  assert.equal(ours(performance.getEntries()).length, 2);
});

test('an empty buffer gives empty arrays', () => {
  assert.deepEqual(performance.getEntriesByType('mark'), []);
  assert.deepEqual(performance.getEntriesByType('measure'), []);
  assert.deepEqual(performance.getEntriesByName('x'), []);
  assert.deepEqual(ours(performance.getEntries()), []);
});

test('getEntriesByType and getEntriesByName need an argument (TypeError)', () => {
  throwsType(() => performance.getEntriesByType());
  throwsType(() => performance.getEntriesByName());
  throwsType(() => performance.getEntriesByType(Symbol('t')));
  throwsType(() => performance.getEntriesByName('a', Symbol('t')));
});

test('query arguments are converted with String()', () => {
  performance.mark('undefined', { startTime: 1 });
  performance.mark('1', { startTime: 2 });
  assert.equal(performance.getEntriesByName(undefined).length, 1);
  assert.equal(performance.getEntriesByName(1).length, 1);
  assert.equal(performance.getEntriesByType({ toString: () => 'mark' }).length, 2);
});

test('the Performance methods check their receiver (TypeError)', () => {
  for (const method of [
    'mark',
    'measure',
    'clearMarks',
    'clearMeasures',
    'getEntries',
    'getEntriesByType',
    'getEntriesByName',
  ]) {
    throwsType(() => performance[method].call({}, 'x'));
    throwsType(() => performance[method].call(undefined, 'x'));
  }
});

test('Performance methods are enumerable on the prototype with the IDL lengths', () => {
  const proto = Object.getPrototypeOf(performance);
  const expected = {
    mark: 1,
    measure: 1,
    clearMarks: 0,
    clearMeasures: 0,
    getEntries: 0,
    getEntriesByType: 1,
    getEntriesByName: 1,
  };
  for (const [name, length] of Object.entries(expected)) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    assert.ok(d, `${name} on the prototype`);
    assert.equal(typeof d.value, 'function');
    assert.ok(
      d.enumerable && d.writable && d.configurable,
      `${name} is enumerable, writable, configurable`,
    );
    assert.equal(d.value.length, length, `${name}.length`);
    assert.equal(Object.hasOwn(performance, name), false, `${name} is not an own property`);
  }
  assert.equal(Object.prototype.toString.call(performance), '[object Performance]');
});

test('measure startTimes sort with marks and with negative start times', () => {
  performance.mark('zero', { startTime: 0 });
  const neg = performance.measure('neg', { duration: 10, end: 4 }); // startTime -6
  assert.deepEqual(ours(performance.getEntries())[0], neg);
});
