// A detail that holds a platform object (a PerformanceMark, the Performance object, an
// observer, a Profiler, the host's own entries) is a DataCloneError, as in Chromium: they are
// not [Serializable], wherever they sit in the value (top level, nested, in a Map or a Set, in a
// cycle); the mark or measure is not buffered. Serializable values beside them still clone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  performance,
  PerformanceMark,
  PerformanceObserver,
  PerformanceObserverEntryList,
  Profiler,
} from '../../glue/index.js';

const inner = performance.mark('inner');
const cyclic = { inner };
cyclic.self = cyclic;
const DETAILS = [
  ['a PerformanceMark', inner, 'PerformanceMark'],
  ['a PerformanceMeasure', performance.measure('m', 'inner'), 'PerformanceMeasure'],
  ['the Performance object', performance, 'Performance'],
  ['a PerformanceObserver', new PerformanceObserver(() => {}), 'PerformanceObserver'],
  ['a mark nested in objects and arrays', { a: [1, { b: inner }] }, 'PerformanceMark'],
  ['a mark as a Map value', { m: new Map([['k', inner]]) }, 'PerformanceMark'],
  ['a mark as a Map key', new Map([[inner, 1]]), 'PerformanceMark'],
  ['a mark in a Set', [new Set([1, inner])], 'PerformanceMark'],
  ['a mark beside a cycle', cyclic, 'PerformanceMark'],
  ['a mark beside a Date', { d: new Date(0), inner }, 'PerformanceMark'],
];
if (
  typeof globalThis.PerformanceMark === 'function' &&
  globalThis.PerformanceMark !== PerformanceMark
)
  DETAILS.push(["the host's own mark", globalThis.performance.mark('host'), 'PerformanceMark']);

const isCloneError = (tag) => (e) =>
  e instanceof DOMException &&
  e.name === 'DataCloneError' &&
  e.message.endsWith(`: ${tag} object could not be cloned.`);

for (const [what, detail, tag] of DETAILS) {
  test(`${what} in detail: DataCloneError from mark(), measure() and new PerformanceMark()`, () => {
    assert.throws(() => performance.mark('x', { detail }), isCloneError(tag));
    assert.throws(() => performance.measure('y', { start: 0, detail }), isCloneError(tag));
    assert.throws(() => new PerformanceMark('z', { detail }), isCloneError(tag));
    assert.equal(performance.getEntriesByName('x').length, 0);
    assert.equal(performance.getEntriesByName('y').length, 0);
  });
}

test('an entry list and a Profiler are platform objects too', async () => {
  const list = await new Promise((resolve) => {
    const o = new PerformanceObserver((l) => {
      o.disconnect();
      resolve(l);
    });
    o.observe({ type: 'mark' });
    performance.mark('observed');
  });
  assert.ok(list instanceof PerformanceObserverEntryList);
  assert.throws(
    () => performance.mark('x', { detail: list }),
    isCloneError('PerformanceObserverEntryList'),
  );
  const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10 });
  try {
    assert.throws(() => performance.mark('x', { detail: { p } }), isCloneError('Profiler'));
  } finally {
    await p.stop();
  }
});

test('serializable values still clone: plain trees, Maps, Dates, cycles without platform objects', () => {
  const cycle = { a: 1 };
  cycle.self = cycle;
  const d = performance.mark('ok', {
    detail: { m: new Map([[1, { x: 2 }]]), t: new Date(5), cycle },
  }).detail;
  assert.deepEqual(d.m, new Map([[1, { x: 2 }]]));
  assert.equal(d.t.getTime(), 5);
  assert.equal(d.cycle.self, d.cycle);
  // An entry's values (not the entry) are fine.
  assert.deepEqual(performance.mark('ok2', { detail: inner.toJSON() }).detail, inner.toJSON());
});
