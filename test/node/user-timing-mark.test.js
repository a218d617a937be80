// User Timing 3: performance.mark() and the PerformanceMark constructor (the ponyfill; no
// globals touched). Modelled on WPT user-timing/mark*.any.js, mark_exceptions,
// structured-serialize-detail.any.js and mark-errors.any.js.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { performance, PerformanceMark, PerformanceEntry } from '../../glue/index.js';

const throwsType = (fn) =>
  assert.throws(fn, (e) => e instanceof TypeError && e.name === 'TypeError');
const throwsDOM = (fn, name) =>
  assert.throws(fn, (e) => e instanceof DOMException && e.name === name);

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
});

test('mark() returns a PerformanceMark with name, entryType, startTime and duration 0', () => {
  const before = performance.now();
  const m = performance.mark('a');
  const after = performance.now();
  assert.ok(m instanceof PerformanceMark);
  assert.ok(m instanceof PerformanceEntry);
  assert.equal(Object.getPrototypeOf(m), PerformanceMark.prototype);
  assert.equal(m.name, 'a');
  assert.equal(m.entryType, 'mark');
  assert.equal(m.duration, 0);
  assert.equal(typeof m.startTime, 'number');
  assert.ok(
    m.startTime >= before && m.startTime <= after,
    `${before} <= ${m.startTime} <= ${after}`,
  );
  assert.equal(m.detail, null);
});

test('mark() buffers the very object it returns', () => {
  const m = performance.mark('buffered');
  const list = performance.getEntriesByName('buffered');
  assert.equal(list.length, 1);
  assert.equal(list[0], m);
  assert.equal(performance.getEntriesByType('mark')[0], m);
  assert.equal(performance.getEntries().filter((e) => e.entryType === 'mark')[0], m);
});

test('marks with the same name are all buffered, in time order', () => {
  const a = performance.mark('same');
  const b = performance.mark('same');
  const c = performance.mark('same');
  assert.deepEqual(performance.getEntriesByName('same'), [a, b, c]);
  assert.ok(a.startTime <= b.startTime && b.startTime <= c.startTime);
});

test('mark() startTimes are monotonic across calls', () => {
  let prev = -1;
  for (let i = 0; i < 100; i++) {
    const t = performance.mark('mono').startTime;
    assert.ok(t >= prev);
    prev = t;
  }
});

test('mark detail is a structured clone: equal value, not the same object', () => {
  const detail = { info: 123, nested: { list: [1, 2, { deep: true }] } };
  const m = performance.mark('d', { detail });
  assert.notEqual(m.detail, detail);
  assert.notEqual(m.detail.nested, detail.nested);
  assert.deepEqual(m.detail, detail);
  detail.info = 456;
  assert.equal(m.detail.info, 123, 'changing the source later does not change the entry');
});

test('mark detail getter returns the same object every time', () => {
  const m = performance.mark('d', { detail: { x: 1 } });
  assert.equal(m.detail, m.detail);
  assert.equal(performance.getEntriesByName('d')[0].detail, m.detail);
});

test('mark detail clones non-plain values (Map, Date, typed array, cycles)', () => {
  const cyc = { name: 'cyc' };
  cyc.self = cyc;
  const detail = {
    map: new Map([[1, 'one']]),
    date: new Date(5),
    bytes: new Uint8Array([1, 2]),
    cyc,
  };
  const d = performance.mark('clone', { detail }).detail;
  assert.ok(d.map instanceof Map);
  assert.notEqual(d.map, detail.map);
  assert.equal(d.map.get(1), 'one');
  assert.ok(d.date instanceof Date);
  assert.equal(d.date.getTime(), 5);
  assert.ok(d.bytes instanceof Uint8Array);
  assert.deepEqual([...d.bytes], [1, 2]);
  assert.equal(d.cyc.self, d.cyc, 'a cycle stays a cycle');
  assert.notEqual(d.cyc, cyc);
});

test('mark detail keeps shared references and cycles that pass through a Map or Set (one StructuredSerialize)', () => {
  const shared = { shared: true };
  const detail = { a: shared, m: new Map([['k', shared]]), s: new Set([shared]) };
  detail.m.set('root', detail);
  const d = performance.mark('identity', { detail }).detail;
  const native = structuredClone(detail);
  assert.equal(native.m.get('k'), native.a, 'sanity: structuredClone keeps the shared reference');
  assert.equal(
    d.m.get('k'),
    d.a,
    'the object shared between a plain property and a Map value stays one object',
  );
  assert.equal([...d.s][0], d.a, 'and a Set member');
  assert.equal(d.m.get('root'), d, 'a cycle back to the root through a Map stays a cycle');
});

test('mark detail keeps non-index properties of arrays and the holes of sparse arrays', () => {
  const arr = [1, 2];
  arr.extra = 'e';
  // biome-ignore lint/suspicious/noSparseArray: the hole is what this test is about
  const sparse = [1, , 3];
  const d = performance.mark('arrays', { detail: { arr, sparse } }).detail;
  assert.equal(d.arr.extra, 'e');
  assert.deepEqual([...d.arr], [1, 2]);
  assert.equal(d.sparse.length, 3);
  assert.equal(1 in d.sparse, false);
});

test('mark detail: a getter that throws propagates its error (not a DataCloneError)', () => {
  const boom = new Error('getter boom');
  assert.throws(
    () =>
      performance.mark('g', {
        detail: {
          get x() {
            throw boom;
          },
        },
      }),
    (e) => e === boom,
  );
  assert.equal(performance.getEntriesByName('g').length, 0);
});

test('mark detail: primitives are kept', () => {
  assert.equal(performance.mark('p', { detail: 42 }).detail, 42);
  assert.equal(performance.mark('p', { detail: 'str' }).detail, 'str');
  assert.equal(performance.mark('p', { detail: false }).detail, false);
  assert.equal(performance.mark('p', { detail: 0 }).detail, 0);
});

test('mark detail is null when absent, undefined or null', () => {
  assert.equal(performance.mark('n').detail, null);
  assert.equal(performance.mark('n', {}).detail, null);
  assert.equal(performance.mark('n', undefined).detail, null);
  assert.equal(performance.mark('n', null).detail, null);
  assert.equal(performance.mark('n', { detail: undefined }).detail, null);
  assert.equal(performance.mark('n', { detail: null }).detail, null);
});

test('mark with a function detail throws a DataCloneError DOMException and buffers nothing', () => {
  throwsDOM(() => performance.mark('f', { detail: () => {} }), 'DataCloneError');
  throwsDOM(() => performance.mark('f', { detail: { nested: () => {} } }), 'DataCloneError');
  assert.equal(performance.getEntriesByName('f').length, 0);
});

test('mark with a symbol detail throws a DataCloneError DOMException', () => {
  throwsDOM(() => performance.mark('s', { detail: Symbol('x') }), 'DataCloneError');
  throwsDOM(() => performance.mark('s', { detail: [Symbol('x')] }), 'DataCloneError');
  assert.equal(performance.getEntriesByName('s').length, 0);
});

test('mark startTime option is used as the startTime, including 0 and fractions', () => {
  assert.equal(performance.mark('t', { startTime: 0 }).startTime, 0);
  assert.equal(performance.mark('t', { startTime: 123.456 }).startTime, 123.456);
  assert.equal(
    performance.mark('t', { startTime: 1e9 }).startTime,
    1e9,
    'a time in the future is allowed',
  );
  assert.equal(performance.mark('t', { startTime: '7' }).startTime, 7, 'converted with ToNumber');
  assert.ok(performance.mark('t', { startTime: -0 }).startTime === 0, '-0 is not negative');
});

test('mark startTime and detail together', () => {
  const m = performance.mark('both', { startTime: 10, detail: { k: 'v' } });
  assert.equal(m.startTime, 10);
  assert.deepEqual(m.detail, { k: 'v' });
});

test('mark with a negative startTime throws TypeError and buffers nothing', () => {
  throwsType(() => performance.mark('neg', { startTime: -1 }));
  throwsType(() => performance.mark('neg', { startTime: -0.0001 }));
  throwsType(() => new PerformanceMark('neg', { startTime: -1 }));
  assert.equal(performance.getEntriesByName('neg').length, 0);
});

test('mark with a NaN or infinite startTime throws TypeError', () => {
  for (const startTime of [NaN, Infinity, -Infinity, 'abc', {}]) {
    throwsType(() => performance.mark('nan', { startTime }));
    throwsType(() => new PerformanceMark('nan', { startTime }));
  }
  assert.equal(performance.getEntriesByName('nan').length, 0);
});

test('mark options that are not a dictionary throw TypeError', () => {
  for (const v of [1, 'str', true, Symbol('s')]) {
    throwsType(() => performance.mark('bad', v));
    throwsType(() => new PerformanceMark('bad', v));
  }
});

test('mark options members are read in order detail, startTime, once each', () => {
  const log = [];
  const options = {
    get startTime() {
      log.push('startTime');
      return 1;
    },
    get detail() {
      log.push('detail');
      return 1;
    },
  };
  performance.mark('order', options);
  assert.deepEqual(log, ['detail', 'startTime']);
});

test('mark() without arguments throws TypeError', () => {
  throwsType(() => performance.mark());
  throwsType(() => new PerformanceMark());
});

test('mark detail clone error comes after the negative startTime check', () => {
  // Constructor steps: startTime (step 5) before detail (step 7).
  throwsType(() => performance.mark('order2', { startTime: -1, detail: () => {} }));
});

test('PerformanceMark constructor creates a mark without buffering it', () => {
  const before = performance.now();
  const m = new PerformanceMark('ctor');
  assert.ok(m instanceof PerformanceMark);
  assert.ok(m instanceof PerformanceEntry);
  assert.equal(m.name, 'ctor');
  assert.equal(m.entryType, 'mark');
  assert.equal(m.duration, 0);
  assert.ok(m.startTime >= before && m.startTime <= performance.now());
  assert.equal(m.detail, null);
  assert.equal(performance.getEntriesByName('ctor').length, 0);
  assert.equal(performance.getEntriesByType('mark').length, 0);
});

test('PerformanceMark constructor takes detail (cloned) and startTime', () => {
  const detail = { a: [1, 2] };
  const m = new PerformanceMark('ctor', { detail, startTime: 5 });
  assert.equal(m.startTime, 5);
  assert.notEqual(m.detail, detail);
  assert.deepEqual(m.detail, detail);
  throwsDOM(() => new PerformanceMark('ctor', { detail: function f() {} }), 'DataCloneError');
});

test('PerformanceMark constructor has length 1 and needs new', () => {
  assert.equal(PerformanceMark.length, 1);
  assert.equal(PerformanceMark.name, 'PerformanceMark');
  throwsType(() => PerformanceMark('x'));
});

test('PerformanceMark created by the constructor does not reach observers or measure', () => {
  new PerformanceMark('unbuffered', { startTime: 1 });
  throwsDOM(() => performance.measure('m', 'unbuffered'), 'SyntaxError');
});

test('PerformanceTiming names are valid mark names outside a Window (Node)', () => {
  const m = performance.mark('navigationStart');
  assert.equal(m.name, 'navigationStart');
  assert.equal(new PerformanceMark('loadEventEnd').name, 'loadEventEnd');
});
