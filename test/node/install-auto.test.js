// `import 'perfshim/auto'` in Node: installs synchronously on globalThis (Node's perf_hooks does
// not conform: its queries overflow the stack on big buffers), while the host's Performance
// object, clock, timeOrigin and toJSON keep working, and perf_hooks' `performance` is the same
// object. This file runs in its own process (node --test), so the install is this file's alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as perfHooks from 'node:perf_hooks';
import { installed } from '../../glue/auto.js';
import * as ponyfill from '../../glue/index.js';

test('auto install reports that it installed the timeline', () => {
  assert.ok(installed.installed.includes('timeline'), JSON.stringify(installed));
  assert.ok(Array.isArray(installed.reasons.timeline) && installed.reasons.timeline.length > 0);
});

test("globalThis.performance.mark and friends are perfshim's", () => {
  for (const m of [
    'mark',
    'measure',
    'clearMarks',
    'clearMeasures',
    'getEntries',
    'getEntriesByType',
    'getEntriesByName',
  ]) {
    assert.equal(globalThis.performance[m], ponyfill.performance[m], `performance.${m}`);
  }
  const m = performance.mark('global');
  assert.ok(m instanceof ponyfill.PerformanceMark);
  assert.equal(Object.getPrototypeOf(m), ponyfill.PerformanceMark.prototype);
});

test("the interface globals are perfshim's", () => {
  for (const name of [
    'PerformanceEntry',
    'PerformanceMark',
    'PerformanceMeasure',
    'PerformanceObserver',
    'PerformanceObserverEntryList',
  ]) {
    assert.equal(globalThis[name], ponyfill[name], name);
    const d = Object.getOwnPropertyDescriptor(globalThis, name);
    assert.equal(d.enumerable, false, `${name} is not enumerable, like WebIDL interface objects`);
    assert.equal(d.writable, true);
    assert.equal(d.configurable, true);
  }
});

test("perf_hooks' performance is the same object and works with perfshim's methods", () => {
  assert.equal(perfHooks.performance, globalThis.performance);
  const m = perfHooks.performance.mark('via-perf-hooks', { detail: { x: 1 } });
  assert.ok(m instanceof PerformanceMark);
  assert.deepEqual(m.detail, { x: 1 });
  assert.deepEqual(globalThis.performance.getEntriesByName('via-perf-hooks'), [m]);
  assert.equal(perfHooks.performance.measure('ph', 'via-perf-hooks').startTime, m.startTime);
});

test('the ponyfill performance and the installed one share one timeline', () => {
  const a = globalThis.performance.mark('shared-a');
  const b = ponyfill.performance.mark('shared-b');
  assert.deepEqual(ponyfill.performance.getEntriesByName('shared-a'), [a]);
  assert.deepEqual(globalThis.performance.getEntriesByName('shared-b'), [b]);
});

test('performance.now(), timeOrigin and toJSON() still work', () => {
  const t1 = performance.now();
  const t2 = performance.now();
  assert.equal(typeof t1, 'number');
  assert.ok(t2 >= t1);
  assert.equal(typeof performance.timeOrigin, 'number');
  assert.ok(
    Math.abs(performance.timeOrigin + performance.now() - Date.now()) < 1000,
    'timeOrigin + now() is about Date.now()',
  );
  const json = performance.toJSON();
  assert.equal(typeof json, 'object');
  assert.equal(json.timeOrigin, performance.timeOrigin);
  assert.ok(JSON.stringify(performance).includes('timeOrigin'));
});

test('marks use the same clock as performance.now()', () => {
  const before = performance.now();
  const m = performance.mark('clock');
  const after = performance.now();
  assert.ok(m.startTime >= before && m.startTime <= after);
});

test('Node extras on performance still work (timerify, eventLoopUtilization, nodeTiming)', () => {
  assert.equal(typeof performance.timerify, 'function');
  const f = performance.timerify(function twice(x) {
    return 2 * x;
  });
  assert.equal(f(21), 42);
  const elu = performance.eventLoopUtilization();
  assert.equal(typeof elu.utilization, 'number');
  assert.equal(typeof performance.nodeTiming, 'object');
});

test('the installed methods are enumerable prototype methods, not own properties', () => {
  const proto = Object.getPrototypeOf(performance);
  for (const m of ['mark', 'measure', 'getEntries']) {
    assert.equal(Object.hasOwn(performance, m), false, m);
    assert.ok(Object.getOwnPropertyDescriptor(proto, m).enumerable, m);
  }
});

test('installed performance.mark() behaves per spec (exception types survive install)', () => {
  assert.throws(
    () => performance.measure('x', 'no-such-mark'),
    (e) => e instanceof DOMException && e.name === 'SyntaxError',
  );
  assert.throws(
    () => performance.mark('x', { startTime: -1 }),
    (e) => e instanceof TypeError,
  );
  assert.throws(
    () => performance.measure('x', 'navigationStart'),
    (e) => e instanceof TypeError,
  );
  assert.throws(() => new PerformanceMeasure(), TypeError);
});

test('installing again is a no-op', () => {
  const again = ponyfill.install();
  assert.deepEqual(again.installed, []);
  assert.equal(globalThis.PerformanceMark, ponyfill.PerformanceMark);
});

test('the installed PerformanceObserver delivers marks', async () => {
  const seen = [];
  const po = new PerformanceObserver((list) => seen.push(...list.getEntries().map((e) => e.name)));
  po.observe({ type: 'mark' });
  performance.mark('observed');
  await new Promise((r) => setTimeout(() => setImmediate(r), 10)); // after the observer's task
  po.disconnect();
  assert.deepEqual(seen, ['observed']);
});

test('200,000 marks on the installed global: getEntriesByName and getEntries work', () => {
  for (let i = 0; i < 200000; i++) performance.mark('many');
  assert.equal(performance.getEntriesByName('many').length, 200000);
  assert.ok(performance.getEntries().length >= 200000);
  performance.clearMarks('many');
  assert.equal(performance.getEntriesByName('many').length, 0);
});
