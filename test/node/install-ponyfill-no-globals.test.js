// `import { performance, ... } from 'perfshim'` (the ponyfill) touches no globals: the host's
// performance methods, interface globals and buffer stay as they were. Own process.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const g = globalThis;
const before = {
  proto: { ...Object.getOwnPropertyDescriptors(Object.getPrototypeOf(g.performance)) },
  performance: g.performance,
  globals: Object.fromEntries(
    [
      'PerformanceEntry',
      'PerformanceMark',
      'PerformanceMeasure',
      'PerformanceObserver',
      'PerformanceObserverEntryList',
    ].map((n) => [n, g[n]]),
  ),
  keys: Reflect.ownKeys(g),
};
const nativeMark = g.performance.mark('native-before');
const ponyfill = await import('../../glue/index.js');

test('the host Performance prototype is untouched', () => {
  const now = Object.getOwnPropertyDescriptors(Object.getPrototypeOf(g.performance));
  assert.deepEqual(Object.keys(now).sort(), Object.keys(before.proto).sort());
  for (const k of Object.keys(now)) {
    assert.equal(now[k].value, before.proto[k].value, k);
    assert.equal(now[k].get, before.proto[k].get, k);
  }
  assert.equal(g.performance, before.performance);
});

test("the interface globals are the host's, and no global was added", () => {
  for (const [n, v] of Object.entries(before.globals)) assert.equal(g[n], v, n);
  const added = Reflect.ownKeys(g).filter((k) => !before.keys.includes(k) && typeof k === 'string');
  assert.deepEqual(added, []);
  assert.notEqual(ponyfill.PerformanceMark, g.PerformanceMark);
  assert.notEqual(ponyfill.performance, g.performance);
});

test('ponyfill marks do not appear in the host buffer, and host marks are not adopted', () => {
  ponyfill.performance.mark('ponyfill-only');
  assert.deepEqual(g.performance.getEntriesByName('ponyfill-only'), []);
  assert.deepEqual(g.performance.getEntriesByName('native-before'), [nativeMark]);
  assert.deepEqual(ponyfill.performance.getEntriesByName('native-before', 'mark'), []);
});

test('the default export is the ponyfill performance', () => {
  assert.equal(ponyfill.default, ponyfill.performance);
});

test('the ponyfill performance has now(), timeOrigin and toJSON() on the host clock', () => {
  const p = ponyfill.performance;
  const a = g.performance.now();
  const b = p.now();
  const c = g.performance.now();
  assert.ok(a <= b && b <= c);
  assert.equal(p.timeOrigin, g.performance.timeOrigin);
  assert.equal(p.toJSON().timeOrigin, g.performance.timeOrigin);
  assert.throws(
    () => new (Object.getPrototypeOf(p).constructor)(),
    TypeError,
    'Performance is not constructible',
  );
});
