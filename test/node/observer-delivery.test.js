// Performance Timeline 2: how PerformanceObserver callbacks are invoked (queue the
// PerformanceObserver task): asynchronously, one callback per observer per task with every
// entry queued so far, arguments (list, observer, options) with `this` = observer,
// droppedEntriesCount only on the first callback after observe(), exceptions reported without
// stopping the other observers. Also PerformanceObserverEntryList's queries.
// WPT performance-timeline/po-callback-mutate, po-mark-measure, droppedentriescount,
// multiple-buffered-flag-observers, po-observe-repeated-type, user-timing/po-*.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  performance,
  PerformanceObserver,
  PerformanceObserverEntryList,
} from '../../glue/index.js';

// A timer can fire before an immediate queued earlier (Node >= 22's test runner runs a test in a
// timer's turn, on a stale loop time): the immediate after it comes after the observer's task.
const tick = () => new Promise((r) => setTimeout(() => setImmediate(r), 10));
const sig = (list) => list.map((e) => `${e.entryType}:${e.name}`);

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
});

test('callbacks run asynchronously, not inside mark()', async () => {
  let called = 0;
  const po = new PerformanceObserver(() => {
    called++;
  });
  po.observe({ type: 'mark' });
  performance.mark('x');
  assert.equal(called, 0);
  await Promise.resolve();
  assert.equal(called, 0, 'not in a microtask either');
  await tick();
  assert.equal(called, 1);
  po.disconnect();
});

test('entries queued synchronously arrive in ONE callback, in startTime order', async () => {
  const calls = [];
  const po = new PerformanceObserver((list) => calls.push(list.getEntries()));
  po.observe({ entryTypes: ['mark', 'measure'] });
  performance.mark('a', { startTime: 30 });
  performance.mark('b', { startTime: 10 });
  performance.measure('c', { start: 20, end: 21 });
  for (let i = 0; i < 100; i++) performance.mark('bulk', { startTime: 40 + i });
  await tick();
  assert.equal(calls.length, 1);
  assert.equal(calls[0].length, 103);
  assert.deepEqual(sig(calls[0].slice(0, 4)), ['mark:b', 'measure:c', 'mark:a', 'mark:bulk']);
  po.disconnect();
});

test('entries made in a later task arrive in a later callback', async () => {
  const calls = [];
  const po = new PerformanceObserver((list) => calls.push(sig(list.getEntries())));
  po.observe({ type: 'mark' });
  performance.mark('first');
  await tick();
  performance.mark('second');
  await tick();
  assert.deepEqual(calls, [['mark:first'], ['mark:second']]);
  po.disconnect();
});

test('the callback gets (list, observer, options) and this === observer', async () => {
  let got;
  const po = new PerformanceObserver(function (...args) {
    got = { self: this, args };
  });
  po.observe({ type: 'mark' });
  const m = performance.mark('args');
  await tick();
  assert.equal(got.args.length, 3);
  const [list, observer, options] = got.args;
  assert.ok(list instanceof PerformanceObserverEntryList);
  assert.equal(observer, po);
  assert.equal(got.self, po);
  assert.equal(typeof options, 'object');
  assert.deepEqual(list.getEntries(), [m]);
  po.disconnect();
});

test('options.droppedEntriesCount is 0 on the first callback after observe() and absent afterwards', async () => {
  const options = [];
  const po = new PerformanceObserver((list, obs, opts) => options.push(opts));
  po.observe({ type: 'mark' });
  performance.mark('one');
  await tick();
  performance.mark('two');
  await tick();
  assert.equal(options.length, 2);
  assert.equal(options[0].droppedEntriesCount, 0);
  assert.equal('droppedEntriesCount' in options[1], false, JSON.stringify(options[1]));
  // A new observe() call sets "requires dropped entries" again.
  po.observe({ type: 'measure' });
  performance.measure('three');
  await tick();
  assert.equal(options.length, 3);
  assert.equal(options[2].droppedEntriesCount, 0);
  po.disconnect();
});

test('droppedEntriesCount is reported for entryTypes observers too', async () => {
  let opts;
  const po = new PerformanceObserver((l, o, options) => {
    opts = options;
  });
  po.observe({ entryTypes: ['mark', 'measure'] });
  performance.mark('x');
  await tick();
  assert.equal(opts.droppedEntriesCount, 0);
  po.disconnect();
});

test('observers are called in registration order, each with its own list', async () => {
  const order = [];
  const a = new PerformanceObserver((list) => order.push(['a', sig(list.getEntries())]));
  const b = new PerformanceObserver((list) => order.push(['b', sig(list.getEntries())]));
  const c = new PerformanceObserver((list) => order.push(['c', sig(list.getEntries())]));
  b.observe({ type: 'mark' });
  a.observe({ entryTypes: ['mark', 'measure'] });
  c.observe({ type: 'measure' });
  performance.mark('m', { startTime: 1 });
  performance.measure('s', { start: 2 });
  await tick();
  assert.deepEqual(order, [
    ['b', ['mark:m']],
    ['a', ['mark:m', 'measure:s']],
    ['c', ['measure:s']],
  ]);
  a.disconnect();
  b.disconnect();
  c.disconnect();
});

test('an observer with nothing buffered is not called', async () => {
  let called = 0;
  const idle = new PerformanceObserver(() => {
    called++;
  });
  idle.observe({ type: 'measure' });
  const busy = new PerformanceObserver(() => {});
  busy.observe({ type: 'mark' });
  performance.mark('x');
  await tick();
  assert.equal(called, 0);
  idle.disconnect();
  busy.disconnect();
});

test('a callback that throws does not stop the other observers; the error is reported', async () => {
  const boom = new Error('observer boom');
  const reported = [];
  // Reported as the host reports exceptions: reportError() where it has one (Bun, Deno; `bun
  // test` fails the running test on any reported error, whatever the listeners), else an
  // uncaught exception (Node).
  const hostReportError = Object.getOwnPropertyDescriptor(globalThis, 'reportError');
  if (hostReportError) globalThis.reportError = (e) => reported.push(e);
  const listeners = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  const onError = (e) => reported.push(e);
  process.on('uncaughtException', onError);
  const seen = [];
  const first = new PerformanceObserver(() => {
    seen.push('first');
    throw boom;
  });
  const second = new PerformanceObserver((list) => {
    seen.push('second');
    seen.push(...sig(list.getEntries()));
  });
  try {
    first.observe({ type: 'mark' });
    second.observe({ type: 'mark' });
    performance.mark('x');
    await tick();
    await tick();
    assert.deepEqual(seen, ['first', 'second', 'mark:x']);
    assert.deepEqual(reported, [boom], 'the thrown error is reported');
    // The observer that threw keeps working.
    performance.mark('y');
    await tick();
    await tick();
    assert.deepEqual(seen.slice(3), ['first', 'second', 'mark:y']);
  } finally {
    first.disconnect();
    second.disconnect();
    process.removeListener('uncaughtException', onError);
    for (const l of listeners) process.on('uncaughtException', l);
    if (hostReportError) Object.defineProperty(globalThis, 'reportError', hostReportError);
  }
});

test('a callback that disconnects a later observer: that observer is not called (disconnect emptied its buffer)', async () => {
  // The task copies the registered observer list, and each observer's buffer is read at its
  // turn: disconnect() empties b's buffer, so b is not called.
  const seen = [];
  const b = new PerformanceObserver(() => seen.push('b'));
  const a = new PerformanceObserver(() => {
    seen.push('a');
    b.disconnect();
  });
  a.observe({ type: 'mark' });
  b.observe({ type: 'mark' });
  performance.mark('x');
  await tick();
  assert.deepEqual(seen, ['a']);
  a.disconnect();
});

test('entries cleared from the performance buffer before the task runs are still delivered', async () => {
  let names = [];
  const po = new PerformanceObserver((list) => {
    names = sig(list.getEntries());
  });
  po.observe({ entryTypes: ['mark', 'measure'] });
  performance.mark('gone', { startTime: 1 });
  performance.measure('gone-too', { start: 2 });
  performance.clearMarks();
  performance.clearMeasures();
  await tick();
  assert.deepEqual(names, ['mark:gone', 'measure:gone-too']);
  po.disconnect();
});

test('entries created inside a callback are delivered in a later callback', async () => {
  const calls = [];
  const po = new PerformanceObserver((list) => {
    calls.push(sig(list.getEntries()));
    if (calls.length === 1) performance.mark('from-callback');
  });
  po.observe({ type: 'mark' });
  performance.mark('first');
  await tick();
  await tick();
  assert.deepEqual(calls, [['mark:first'], ['mark:from-callback']]);
  po.disconnect();
});

test('disconnect() inside the callback stops later deliveries', async () => {
  let calls = 0;
  const po = new PerformanceObserver((list, obs) => {
    calls++;
    obs.disconnect();
  });
  po.observe({ type: 'mark' });
  performance.mark('a');
  await tick();
  performance.mark('b');
  await tick();
  assert.equal(calls, 1);
});

test('observed entries are the objects mark()/measure() returned', async () => {
  let entries;
  const po = new PerformanceObserver((list) => {
    entries = list.getEntries();
  });
  po.observe({ entryTypes: ['mark', 'measure'] });
  const m = performance.mark('a', { startTime: 1 });
  const s = performance.measure('b', { start: 2, end: 3 });
  await tick();
  assert.equal(entries[0], m);
  assert.equal(entries[1], s);
  po.disconnect();
});

test('PerformanceObserverEntryList: getEntries, ByType and ByName sorted by startTime', async () => {
  let list;
  const po = new PerformanceObserver((l) => {
    list = l;
  });
  po.observe({ entryTypes: ['mark', 'measure'] });
  performance.mark('x', { startTime: 50 });
  performance.measure('x', { start: 10, end: 60 });
  performance.mark('y', { startTime: 5 });
  performance.mark('x', { startTime: 20 });
  performance.measure('z', { start: 30, end: 31 });
  await tick();
  const at = (l) => l.map((e) => `${e.entryType}:${e.name}@${e.startTime}`);
  assert.deepEqual(at(list.getEntries()), [
    'mark:y@5',
    'measure:x@10',
    'mark:x@20',
    'measure:z@30',
    'mark:x@50',
  ]);
  assert.deepEqual(at(list.getEntriesByType('mark')), ['mark:y@5', 'mark:x@20', 'mark:x@50']);
  assert.deepEqual(at(list.getEntriesByType('measure')), ['measure:x@10', 'measure:z@30']);
  assert.deepEqual(at(list.getEntriesByName('x')), ['measure:x@10', 'mark:x@20', 'mark:x@50']);
  assert.deepEqual(at(list.getEntriesByName('x', 'mark')), ['mark:x@20', 'mark:x@50']);
  assert.deepEqual(at(list.getEntriesByName('x', 'measure')), ['measure:x@10']);
  assert.deepEqual(list.getEntriesByType('nope'), []);
  assert.deepEqual(list.getEntriesByName('nope'), []);
  assert.deepEqual(list.getEntriesByName('x', 'nope'), []);
  po.disconnect();
});

test('PerformanceObserverEntryList ties keep queue order; results are fresh arrays', async () => {
  let list;
  const po = new PerformanceObserver((l) => {
    list = l;
  });
  po.observe({ type: 'mark' });
  const a = performance.mark('t1', { startTime: 7 });
  const b = performance.mark('t2', { startTime: 7 });
  const c = performance.mark('t3', { startTime: 7 });
  await tick();
  assert.deepEqual(list.getEntries(), [a, b, c]);
  const first = list.getEntries();
  first.length = 0;
  assert.equal(list.getEntries().length, 3, 'mutating a result does not change the list');
  assert.notEqual(list.getEntries(), list.getEntries());
  po.disconnect();
});

test('PerformanceObserverEntryList methods need their arguments (TypeError)', async () => {
  let list;
  const po = new PerformanceObserver((l) => {
    list = l;
  });
  po.observe({ type: 'mark' });
  performance.mark('x');
  await tick();
  assert.throws(() => list.getEntriesByType(), TypeError);
  assert.throws(() => list.getEntriesByName(), TypeError);
  assert.throws(() => list.getEntriesByName(Symbol('x')), TypeError);
  po.disconnect();
});

test('the entry list outlives the callback', async () => {
  let list;
  const po = new PerformanceObserver((l) => {
    list = l;
  });
  po.observe({ type: 'mark' });
  performance.mark('kept');
  await tick();
  performance.clearMarks();
  assert.deepEqual(sig(list.getEntries()), ['mark:kept']);
  po.disconnect();
});
