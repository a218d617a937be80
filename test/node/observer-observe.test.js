// Performance Timeline 2: the PerformanceObserver constructor, observe()'s exceptions and its
// registration rules (entryTypes replaces, type adds, unknown types ignored), takeRecords(),
// disconnect() and supportedEntryTypes. WPT performance-timeline/po-observe*.any.js,
// po-takeRecords, po-disconnect*, supportedEntryTypes.any.js, observer-type.any.js.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { performance, PerformanceObserver } from '../../glue/index.js';

const throwsType = (fn, msg) =>
  assert.throws(fn, (e) => e instanceof TypeError && e.name === 'TypeError', msg);
const throwsDOM = (fn, name, code) =>
  assert.throws(fn, (e) => e instanceof DOMException && e.name === name && e.code === code);
// The observer's task is an immediate queued before the wait: a timer can fire before it (a
// loaded machine, or Node >= 22's test runner on a stale loop time), the immediate after it cannot.
const tick = () => new Promise((r) => setTimeout(() => setImmediate(r), 10));

// observe() warns on the console for unsupported types; keep the test output readable.
const warn = console.warn;
const warnings = [];
console.warn = (...args) => {
  warnings.push(args.join(' '));
};
process.on('exit', () => {
  console.warn = warn;
});

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
  warnings.length = 0;
});

/** An observer that records its callbacks; `stop()` disconnects it. */
function recorder() {
  const calls = [];
  const po = new PerformanceObserver((list, obs, options) =>
    calls.push({ entries: list.getEntries(), obs, options }),
  );
  const names = () => calls.flatMap((c) => c.entries.map((e) => `${e.entryType}:${e.name}`));
  return { po, calls, names };
}

test('the constructor needs a callback function (TypeError otherwise)', () => {
  throwsType(() => new PerformanceObserver());
  for (const v of [undefined, null, {}, 'fn', 1, true, Symbol('s'), [], { handleEvent() {} }]) {
    throwsType(() => new PerformanceObserver(v), `callback ${String(typeof v)}`);
  }
  assert.ok(new PerformanceObserver(() => {}) instanceof PerformanceObserver);
  assert.ok(
    new PerformanceObserver(class {}) instanceof PerformanceObserver,
    'any callable is a callback',
  );
});

test('observe() with neither entryTypes nor type throws TypeError', () => {
  const po = new PerformanceObserver(() => {});
  throwsType(() => po.observe());
  throwsType(() => po.observe({}));
  throwsType(() => po.observe(undefined));
  throwsType(() => po.observe(null));
  throwsType(() => po.observe({ buffered: true }));
  throwsType(() => po.observe({ entryTypes: undefined, type: undefined }));
});

test('observe() with both entryTypes and type throws TypeError', () => {
  const po = new PerformanceObserver(() => {});
  throwsType(() => po.observe({ entryTypes: ['mark'], type: 'mark' }));
  throwsType(() => po.observe({ entryTypes: ['mark'], type: 'measure', buffered: true }));
  throwsType(() => po.observe({ entryTypes: [], type: 'mark' }));
});

test('observe() with a non-dictionary or a non-sequence entryTypes throws TypeError', () => {
  const po = new PerformanceObserver(() => {});
  throwsType(() => po.observe('mark'));
  throwsType(() => po.observe(1));
  throwsType(() => po.observe({ entryTypes: 'mark' }), 'a string is not a sequence');
  throwsType(() => po.observe({ entryTypes: 5 }));
  throwsType(() => po.observe({ entryTypes: [Symbol('x')] }));
  throwsType(() => po.observe({ type: Symbol('x') }));
});

test('observe() converts durationThreshold as a WebIDL double: a BigInt or NaN is a TypeError', () => {
  const po = new PerformanceObserver(() => {});
  throwsType(() => po.observe({ type: 'mark', durationThreshold: 16n }), 'a BigInt is no double');
  throwsType(() => po.observe({ type: 'mark', durationThreshold: NaN }));
  throwsType(() => po.observe({ type: 'mark', durationThreshold: Symbol('x') }));
  po.observe({ type: 'mark', durationThreshold: '16' });
  po.disconnect();
});

test('entryTypes then type on the same observer throws InvalidModificationError', () => {
  const po = new PerformanceObserver(() => {});
  po.observe({ entryTypes: ['mark'] });
  throwsDOM(() => po.observe({ type: 'mark' }), 'InvalidModificationError', 13);
  throwsDOM(() => po.observe({ type: 'measure', buffered: true }), 'InvalidModificationError', 13);
  po.disconnect();
});

test('type then entryTypes on the same observer throws InvalidModificationError', () => {
  const po = new PerformanceObserver(() => {});
  po.observe({ type: 'mark' });
  throwsDOM(() => po.observe({ entryTypes: ['mark'] }), 'InvalidModificationError', 13);
  po.disconnect();
});

test('the observer type sticks even after disconnect() and after an unsupported type', () => {
  const a = new PerformanceObserver(() => {});
  a.observe({ type: 'mark' });
  a.disconnect();
  throwsDOM(() => a.observe({ entryTypes: ['mark'] }), 'InvalidModificationError', 13);
  const b = new PerformanceObserver(() => {});
  b.observe({ type: 'no-such-type' });
  throwsDOM(() => b.observe({ entryTypes: ['mark'] }), 'InvalidModificationError', 13);
  const c = new PerformanceObserver(() => {});
  c.observe({ entryTypes: ['no-such-type'] });
  throwsDOM(() => c.observe({ type: 'mark' }), 'InvalidModificationError', 13);
});

test('a failed observe() (TypeError) does not fix the observer type', () => {
  const po = new PerformanceObserver(() => {});
  throwsType(() => po.observe({ entryTypes: ['mark'], type: 'mark' }));
  po.observe({ type: 'mark' });
  po.disconnect();
});

test('unknown types are ignored: no exception, no registration', async () => {
  const r = recorder();
  r.po.observe({ type: 'no-such-type' });
  r.po.observe({ type: 'Mark' });
  performance.mark('x');
  await tick();
  assert.deepEqual(r.calls, []);
  assert.deepEqual(r.po.takeRecords(), []);
  const s = recorder();
  s.po.observe({ entryTypes: ['no-such-type', 'MEASURE'] });
  performance.mark('y');
  performance.measure('y');
  await tick();
  assert.deepEqual(s.calls, []);
  r.po.disconnect();
  s.po.disconnect();
});

test('an empty entryTypes list registers nothing and does not throw', async () => {
  const r = recorder();
  r.po.observe({ entryTypes: [] });
  performance.mark('x');
  await tick();
  assert.deepEqual(r.calls, []);
});

test('entryTypes keeps the supported types of a mixed list', async () => {
  const r = recorder();
  r.po.observe({ entryTypes: ['no-such-type', 'mark'] });
  performance.mark('kept');
  await tick();
  assert.deepEqual(r.names(), ['mark:kept']);
  r.po.disconnect();
});

test('observe({entryTypes}) again replaces the types', async () => {
  const r = recorder();
  r.po.observe({ entryTypes: ['mark'] });
  r.po.observe({ entryTypes: ['measure'] });
  performance.mark('m1');
  performance.measure('s1');
  await tick();
  assert.deepEqual(r.names(), ['measure:s1']);
  r.po.disconnect();
});

test('observe({entryTypes}) with only unknown types keeps the previous registration', async () => {
  const r = recorder();
  r.po.observe({ entryTypes: ['mark'] });
  r.po.observe({ entryTypes: ['no-such-type'] });
  performance.mark('still');
  await tick();
  assert.deepEqual(r.names(), ['mark:still']);
  r.po.disconnect();
});

test('observe({type}) again with another type adds it', async () => {
  const r = recorder();
  r.po.observe({ type: 'mark' });
  r.po.observe({ type: 'measure' });
  performance.mark('m1');
  performance.measure('s1');
  await tick();
  assert.deepEqual(r.names().sort(), ['mark:m1', 'measure:s1']);
  r.po.disconnect();
});

test('observe({type}) twice with the same type delivers each entry once', async () => {
  const r = recorder();
  r.po.observe({ type: 'mark' });
  r.po.observe({ type: 'mark' });
  performance.mark('once');
  await tick();
  assert.deepEqual(r.names(), ['mark:once']);
  r.po.disconnect();
});

test('an observer receives only the types it observes', async () => {
  const marks = recorder();
  const measures = recorder();
  marks.po.observe({ type: 'mark' });
  measures.po.observe({ entryTypes: ['measure'] });
  performance.mark('a');
  performance.measure('b');
  await tick();
  assert.deepEqual(marks.names(), ['mark:a']);
  assert.deepEqual(measures.names(), ['measure:b']);
  marks.po.disconnect();
  measures.po.disconnect();
});

test('buffered: true with type delivers the entries buffered before observe()', async () => {
  performance.mark('early1', { startTime: 20 });
  performance.mark('early2', { startTime: 10 });
  performance.measure('early-measure', { start: 1, end: 2 });
  const r = recorder();
  r.po.observe({ type: 'mark', buffered: true });
  performance.mark('late', { startTime: 30 });
  await tick();
  assert.equal(r.calls.length, 1, 'buffered and new entries arrive in one callback');
  assert.deepEqual(r.names(), ['mark:early2', 'mark:early1', 'mark:late']);
  r.po.disconnect();
});

test('buffered: true for two types delivers both in one callback, sorted by startTime', async () => {
  performance.mark('bm', { startTime: 20 });
  performance.measure('bs', { start: 10, end: 30 });
  const r = recorder();
  r.po.observe({ type: 'mark', buffered: true });
  r.po.observe({ type: 'measure', buffered: true });
  await tick();
  assert.equal(r.calls.length, 1);
  assert.deepEqual(r.names(), ['measure:bs', 'mark:bm']);
  r.po.disconnect();
});

test('several observers with buffered: true each get the buffered entries', async () => {
  performance.mark('shared-old');
  const a = recorder();
  const b = recorder();
  a.po.observe({ type: 'mark', buffered: true });
  b.po.observe({ type: 'mark', buffered: true });
  await tick();
  assert.deepEqual(a.names(), ['mark:shared-old']);
  assert.deepEqual(b.names(), ['mark:shared-old']);
  a.po.disconnect();
  b.po.disconnect();
});

test('buffered entries are the same objects as in the buffer', async () => {
  const m = performance.mark('same');
  const r = recorder();
  r.po.observe({ type: 'mark', buffered: true });
  await tick();
  assert.equal(r.calls[0].entries[0], m);
  r.po.disconnect();
});

test('without buffered, earlier entries are not delivered', async () => {
  performance.mark('before');
  const r = recorder();
  r.po.observe({ type: 'mark' });
  r.po.observe({ type: 'measure', buffered: false });
  await tick();
  assert.deepEqual(r.calls, []);
  r.po.disconnect();
});

test('buffered: true with entryTypes is ignored, as browsers do (no throw, no buffered entries)', async () => {
  performance.mark('before');
  const r = recorder();
  r.po.observe({ entryTypes: ['mark'], buffered: true });
  performance.mark('after');
  await tick();
  assert.deepEqual(r.names(), ['mark:after']);
  r.po.disconnect();
});

test('buffered: true with an empty buffer queues no callback', async () => {
  const r = recorder();
  r.po.observe({ type: 'measure', buffered: true });
  await tick();
  assert.deepEqual(r.calls, []);
  r.po.disconnect();
});

test('takeRecords() returns and drains the observer buffer', async () => {
  const r = recorder();
  r.po.observe({ type: 'mark' });
  const a = performance.mark('a');
  const b = performance.mark('b');
  const records = r.po.takeRecords();
  assert.deepEqual(records, [a, b]);
  assert.deepEqual(r.po.takeRecords(), [], 'drained');
  await tick();
  assert.deepEqual(r.calls, [], 'taken records are not delivered again');
  performance.mark('c');
  await tick();
  assert.deepEqual(r.names(), ['mark:c']);
  r.po.disconnect();
});

test('takeRecords() includes buffered entries queued by observe({buffered})', () => {
  const m = performance.mark('old');
  const r = recorder();
  r.po.observe({ type: 'mark', buffered: true });
  assert.deepEqual(r.po.takeRecords(), [m]);
  r.po.disconnect();
});

test('takeRecords() on a fresh or disconnected observer is an empty array', () => {
  const po = new PerformanceObserver(() => {});
  assert.deepEqual(po.takeRecords(), []);
  assert.ok(Array.isArray(po.takeRecords()));
  po.disconnect();
  assert.deepEqual(po.takeRecords(), []);
});

test('disconnect() stops delivery and empties the observer buffer', async () => {
  const r = recorder();
  r.po.observe({ type: 'mark' });
  performance.mark('queued');
  assert.equal(r.po.disconnect(), undefined);
  assert.deepEqual(r.po.takeRecords(), []);
  performance.mark('after');
  await tick();
  assert.deepEqual(r.calls, []);
});

test('disconnect() on one observer does not affect another', async () => {
  const a = recorder();
  const b = recorder();
  a.po.observe({ type: 'mark' });
  b.po.observe({ type: 'mark' });
  a.po.disconnect();
  performance.mark('x');
  await tick();
  assert.deepEqual(a.calls, []);
  assert.deepEqual(b.names(), ['mark:x']);
  b.po.disconnect();
});

test('observe() after disconnect() registers again', async () => {
  const r = recorder();
  r.po.observe({ type: 'mark' });
  r.po.disconnect();
  r.po.observe({ type: 'measure' });
  performance.mark('m');
  performance.measure('s');
  await tick();
  assert.deepEqual(r.names(), ['measure:s'], 'the options list was emptied by disconnect');
  r.po.disconnect();
});

test('supportedEntryTypes: a frozen array, the same object every time, sorted, with mark and measure', () => {
  const types = PerformanceObserver.supportedEntryTypes;
  assert.ok(Array.isArray(types));
  assert.ok(Object.isFrozen(types));
  assert.equal(PerformanceObserver.supportedEntryTypes, types);
  assert.ok(types.includes('mark'));
  assert.ok(types.includes('measure'));
  assert.deepEqual([...types].sort(), [...types]);
  assert.equal(new Set(types).size, types.length, 'no duplicates');
  for (const t of types) assert.equal(typeof t, 'string');
  assert.throws(() => {
    'use strict';
    types.push('x');
  }, TypeError);
});

test("supportedEntryTypes includes the host's own types (the union)", async () => {
  const { PerformanceObserver: NodePO } = await import('node:perf_hooks');
  for (const t of NodePO.supportedEntryTypes) {
    assert.ok(PerformanceObserver.supportedEntryTypes.includes(t), `host type ${t}`);
  }
});

test('supportedEntryTypes is not settable on the interface', () => {
  const before = PerformanceObserver.supportedEntryTypes;
  assert.throws(() => {
    'use strict';
    PerformanceObserver.supportedEntryTypes = [];
  }, TypeError);
  assert.equal(PerformanceObserver.supportedEntryTypes, before);
});

test('observe() warns about unsupported types on the console', () => {
  const po = new PerformanceObserver(() => {});
  po.observe({ type: 'no-such-type' });
  assert.ok(
    warnings.some((w) => w.includes('no-such-type')),
    warnings.join('\n'),
  );
});
