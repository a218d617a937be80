// User Timing 3: clearMarks()/clearMeasures() with and without a name, and what a name can be
// (WebIDL DOMString: any string, objects through ToString, Symbols rejected).
// WPT: user-timing/clear_all_marks, clear_one_mark, clear_all_measures, clear_one_measure,
// clear_non_existent_mark, mark_exceptions.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { performance, PerformanceMark } from '../../glue/index.js';

const throwsType = (fn) =>
  assert.throws(fn, (e) => e instanceof TypeError && e.name === 'TypeError');
const names = (list) => list.map((e) => `${e.entryType}:${e.name}`);

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
});

test('clearMarks() removes every mark and no measure', () => {
  performance.mark('a');
  performance.mark('b');
  performance.mark('a');
  performance.measure('m', 'a');
  assert.equal(performance.clearMarks(), undefined);
  assert.deepEqual(performance.getEntriesByType('mark'), []);
  assert.deepEqual(names(performance.getEntriesByType('measure')), ['measure:m']);
});

test('clearMarks(name) removes only the marks of that name, all of them', () => {
  performance.mark('a');
  performance.mark('b');
  performance.mark('a');
  performance.mark('c');
  assert.equal(performance.clearMarks('a'), undefined);
  assert.deepEqual(names(performance.getEntriesByType('mark')), ['mark:b', 'mark:c']);
  assert.deepEqual(performance.getEntriesByName('a'), []);
});

test('clearMarks(name) leaves measures of the same name', () => {
  performance.mark('x');
  performance.measure('x');
  performance.clearMarks('x');
  assert.deepEqual(names(performance.getEntriesByName('x')), ['measure:x']);
});

test('clearMarks(undefined) clears all marks, as if omitted', () => {
  performance.mark('a');
  performance.mark('b');
  performance.clearMarks(undefined);
  assert.deepEqual(performance.getEntriesByType('mark'), []);
});

test('clearMarks with a name that does not exist changes nothing', () => {
  performance.mark('a');
  performance.clearMarks('nope');
  performance.clearMarks('');
  assert.deepEqual(names(performance.getEntriesByType('mark')), ['mark:a']);
});

test('clearMarks(null) clears the marks named "null" only', () => {
  performance.mark('null');
  performance.mark('other');
  performance.clearMarks(null);
  assert.deepEqual(names(performance.getEntriesByType('mark')), ['mark:other']);
});

test('clearMeasures() removes every measure and no mark', () => {
  performance.mark('a');
  performance.measure('m1');
  performance.measure('m2');
  assert.equal(performance.clearMeasures(), undefined);
  assert.deepEqual(performance.getEntriesByType('measure'), []);
  assert.deepEqual(names(performance.getEntriesByType('mark')), ['mark:a']);
});

test('clearMeasures(name) removes only the measures of that name', () => {
  performance.measure('m1', { start: 1 });
  performance.measure('m2', { start: 2 });
  performance.measure('m1', { start: 3 });
  performance.mark('m1');
  performance.clearMeasures('m1');
  assert.deepEqual(names(performance.getEntriesByType('measure')), ['measure:m2']);
  assert.deepEqual(names(performance.getEntriesByName('m1')), ['mark:m1']);
});

test('cleared entries stay valid objects', () => {
  const m = performance.mark('keep', { startTime: 3, detail: { a: 1 } });
  performance.clearMarks();
  assert.equal(m.name, 'keep');
  assert.equal(m.startTime, 3);
  assert.deepEqual(m.detail, { a: 1 });
  assert.deepEqual(m.toJSON(), {
    name: 'keep',
    entryType: 'mark',
    startTime: 3,
    duration: 0,
    detail: { a: 1 },
  });
});

test('clearMarks with a Symbol throws TypeError', () => {
  throwsType(() => performance.clearMarks(Symbol('x')));
  throwsType(() => performance.clearMeasures(Symbol('x')));
});

test('marking again after clearing buffers the new mark only', () => {
  performance.mark('a', { startTime: 1 });
  performance.clearMarks('a');
  const again = performance.mark('a', { startTime: 2 });
  assert.deepEqual(performance.getEntriesByName('a'), [again]);
});

const NAMES = {
  empty: '',
  space: ' ',
  'non-ASCII': 'Größe — Δt',
  CJK: '測定マーク',
  emoji: '🚀🔥 start 👩‍👩‍👧‍👦',
  'lone surrogate': 'a\uD800b',
  'NUL inside': 'a\u0000b',
  'very long (100k)': 'x'.repeat(100000) + 'é',
  'looks like JSON': '{"name":"x"}',
};

for (const [label, name] of Object.entries(NAMES)) {
  test(`a ${label} name round-trips through mark, measure, get and clear`, () => {
    const m = performance.mark(name, { startTime: 1 });
    assert.equal(m.name, name);
    assert.equal(m.name.length, name.length);
    assert.deepEqual(performance.getEntriesByName(name), [m]);
    assert.deepEqual(performance.getEntriesByName(name, 'mark'), [m]);
    const ms = performance.measure(name, name);
    assert.equal(ms.name, name);
    assert.equal(ms.startTime, 1);
    assert.deepEqual(performance.getEntriesByName(name, 'measure'), [ms]);
    // A different name with the same prefix does not match.
    assert.deepEqual(performance.getEntriesByName(name + '_'), []);
    performance.clearMarks(name);
    performance.clearMeasures(name);
    assert.deepEqual(performance.getEntriesByName(name), []);
  });
}

test('names that differ only in a lone surrogate are different names', () => {
  performance.mark('a\uD800');
  performance.mark('a\uD801');
  assert.equal(performance.getEntriesByName('a\uD800').length, 1);
  assert.equal(performance.getEntriesByName('a\uD801').length, 1);
  assert.equal(performance.getEntriesByName('a\uFFFD').length, 0);
});

test('empty-string names are not confused with absent ones', () => {
  performance.mark('', { startTime: 4 });
  const m = performance.measure('m', '');
  assert.equal(m.startTime, 4);
  performance.clearMarks('');
  assert.deepEqual(performance.getEntriesByType('mark'), []);
});

test('a Symbol as a mark or measure name throws TypeError', () => {
  throwsType(() => performance.mark(Symbol('s')));
  throwsType(() => performance.measure(Symbol('s')));
  throwsType(() => new PerformanceMark(Symbol('s')));
  throwsType(() => performance.getEntriesByName(Symbol('s')));
  assert.deepEqual(
    performance.getEntries().filter((e) => e.entryType === 'mark' || e.entryType === 'measure'),
    [],
  );
});

test('objects, numbers, null and undefined as names are converted with String()', () => {
  const obj = {
    toString() {
      return 'fromObject';
    },
  };
  assert.equal(performance.mark(obj).name, 'fromObject');
  assert.equal(performance.mark(42).name, '42');
  assert.equal(performance.mark(null).name, 'null');
  assert.equal(performance.mark(undefined).name, 'undefined');
  assert.equal(performance.mark({}).name, '[object Object]');
  assert.equal(performance.mark([1, 2]).name, '1,2');
  assert.equal(new PerformanceMark(obj).name, 'fromObject');
  assert.equal(performance.measure(obj).name, 'fromObject');
  assert.equal(performance.getEntriesByName(obj, 'mark').length, 1);
  assert.equal(performance.getEntriesByName('fromObject').length, 2);
});

test('a name whose toString throws propagates that error and buffers nothing', () => {
  const boom = new Error('boom');
  const bad = {
    toString() {
      throw boom;
    },
  };
  assert.throws(
    () => performance.mark(bad),
    (e) => e === boom,
  );
  assert.throws(
    () => performance.measure(bad),
    (e) => e === boom,
  );
  assert.deepEqual(performance.getEntriesByType('mark'), []);
});

test('many distinct names (interning past its release threshold) stay correct', () => {
  for (let i = 0; i < 10000; i++) performance.mark(`n${i}`, { startTime: i });
  performance.clearMarks();
  for (let i = 0; i < 10000; i++) performance.mark(`k${i}`, { startTime: i });
  assert.equal(performance.getEntriesByName('k9999')[0].startTime, 9999);
  assert.equal(performance.getEntriesByName('n5').length, 0);
  assert.equal(performance.measure('m', 'k42', 'k50').duration, 8);
  performance.mark('n5', { startTime: 1 });
  assert.equal(performance.getEntriesByName('n5').length, 1);
});
