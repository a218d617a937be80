// The Profiler interface's rules: WebIDL conversion, every exception (type AND name), states,
// the event handler attribute, the prototype shape.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../glue/host/loader.js';
import { createProfilerClass, getProfiler } from '../../glue/profiler/profiler.js';
import { spinFor } from './fixtures/profiler-work.mjs';

const Profiler = getProfiler();
const opts = (o = {}) => ({ sampleInterval: 10, maxBufferSize: 100, ...o });

const isType = (Ctor, pattern) => (e) => {
  assert.equal(e.constructor, Ctor);
  assert.equal(e.name, Ctor.name);
  if (pattern) assert.match(e.message, pattern);
  return true;
};
const isDOM = (name, pattern) => (e) => {
  assert.ok(e instanceof DOMException, `${e} is a DOMException`);
  assert.equal(e.name, name);
  if (pattern) assert.match(e.message, pattern);
  return true;
};

test('Profiler is an EventTarget with the IDL prototype', async () => {
  assert.equal(Object.getPrototypeOf(Profiler.prototype), EventTarget.prototype);
  assert.equal(Profiler.length, 1);
  const p = new Profiler(opts());
  assert.ok(p instanceof EventTarget);
  assert.equal(Object.prototype.toString.call(p), '[object Profiler]');
  for (const name of ['sampleInterval', 'stopped', 'onsamplebufferfull', 'stop']) {
    const d = Object.getOwnPropertyDescriptor(Profiler.prototype, name);
    assert.ok(d, name);
    assert.equal(d.enumerable, true, `${name} enumerable`);
  }
  assert.equal(
    Object.getOwnPropertyDescriptor(Profiler.prototype, 'sampleInterval').set,
    undefined,
  );
  assert.equal(Object.getOwnPropertyDescriptor(Profiler.prototype, 'stopped').set, undefined);
  assert.deepEqual(Object.keys(p), []);
  await p.stop();
});

test('calling Profiler without new is a TypeError', () => {
  assert.throws(() => Profiler(opts()), isType(TypeError));
});

test('a missing options argument is a TypeError', () => {
  assert.throws(() => new Profiler(), isType(TypeError, /1 argument required/));
});

test('missing required members are TypeErrors, maxBufferSize first', () => {
  assert.throws(
    () => new Profiler({}),
    isType(TypeError, /'maxBufferSize'.*Required member is undefined/),
  );
  assert.throws(() => new Profiler(undefined), isType(TypeError, /'maxBufferSize'/));
  assert.throws(() => new Profiler(null), isType(TypeError, /'maxBufferSize'/));
  assert.throws(() => new Profiler({ sampleInterval: 10 }), isType(TypeError, /'maxBufferSize'/));
  assert.throws(
    () => new Profiler({ maxBufferSize: 10 }),
    isType(TypeError, /'sampleInterval'.*Required member/),
  );
});

test('options that are not a dictionary are a TypeError', () => {
  assert.throws(() => new Profiler(5), isType(TypeError, /ProfilerInitOptions/));
  assert.throws(() => new Profiler('x'), isType(TypeError, /ProfilerInitOptions/));
});

test('members are read once each, in lexicographic order', async () => {
  const log = [];
  const p = new Profiler({
    get sampleInterval() {
      log.push('sampleInterval');
      return 10;
    },
    get maxBufferSize() {
      log.push('maxBufferSize');
      return 5;
    },
  });
  assert.deepEqual(log, ['maxBufferSize', 'sampleInterval']);
  await p.stop();
});

test('a non-finite sampleInterval is a TypeError', () => {
  for (const v of [NaN, Infinity, -Infinity, 'abc']) {
    assert.throws(
      () => new Profiler(opts({ sampleInterval: v })),
      isType(TypeError, /non-finite/),
      String(v),
    );
  }
});

test('member conversion errors propagate as TypeErrors', () => {
  assert.throws(() => new Profiler(opts({ maxBufferSize: Symbol('x') })), isType(TypeError));
  assert.throws(() => new Profiler(opts({ maxBufferSize: 1n })), isType(TypeError));
  assert.throws(() => new Profiler(opts({ sampleInterval: Symbol('x') })), isType(TypeError));
});

test('a negative sampleInterval is a RangeError', () => {
  assert.throws(
    () => new Profiler(opts({ sampleInterval: -1 })),
    isType(RangeError, /sampleInterval/),
  );
  assert.throws(() => new Profiler(opts({ sampleInterval: -0.001 })), isType(RangeError));
});

test('a context without a sample source throws NotAllowedError saying what to do', () => {
  const Bare = createProfilerClass(loadCore(), { source: null });
  assert.throws(() => new Bare(opts()), isDOM('NotAllowedError', /Document-Policy: js-profiling/));
  // Argument errors still come first, as in the spec's steps.
  assert.throws(() => new Bare(opts({ sampleInterval: -1 })), isType(RangeError));
  assert.throws(() => new Bare({}), isType(TypeError));
});

test("a source's NotAllowedError becomes ours, with the fix in the message", () => {
  let freed = 0;
  const source = {
    name: 'chromium-native',
    supportedIntervalMs: null,
    start() {
      freed++;
      throw new DOMException('JS profiling is disabled by Document Policy.', 'NotAllowedError');
    },
  };
  const P = createProfilerClass(loadCore(), { source });
  assert.throws(
    () => new P(opts()),
    isDOM('NotAllowedError', /Failed to construct 'Profiler'.*'Document-Policy: js-profiling'/),
  );
  assert.equal(freed, 1);
});

test('sampleInterval is the interval the source uses: the next whole microsecond, at least 0.1 ms', async () => {
  const cases = [
    [10, 10],
    [1, 1],
    [3.5, 3.5],
    [0, 0.1],
    [0.0001, 0.1],
    [1.0000001, 1.001],
    [0.25, 0.25],
  ];
  for (const [asked, used] of cases) {
    const p = new Profiler(opts({ sampleInterval: asked }));
    assert.equal(p.sampleInterval, used, `asked ${asked}`);
    await p.stop();
  }
  const p = new Profiler(opts({ sampleInterval: '20' })); // converted like any double
  assert.equal(p.sampleInterval, 20);
  await p.stop();
});

test('a session starts started and stop() moves it to stopped', async () => {
  const p = new Profiler(opts());
  assert.equal(p.stopped, false);
  const promise = p.stop();
  assert.equal(p.stopped, true);
  assert.ok(promise instanceof Promise);
  const trace = await promise;
  assert.deepEqual(Object.keys(trace), ['frames', 'resources', 'samples', 'stacks']);
});

test('stop() on a stopped profiler rejects with InvalidStateError', async () => {
  const p = new Profiler(opts());
  await p.stop();
  await assert.rejects(p.stop(), isDOM('InvalidStateError', /already stopped/));
  assert.equal(p.stopped, true);
});

test('stop() twice in a row: the second rejects, the first still resolves', async () => {
  const p = new Profiler(opts());
  const first = p.stop();
  const second = p.stop();
  await assert.rejects(second, isDOM('InvalidStateError'));
  const t = await first;
  assert.ok(Array.isArray(t.samples));
});

test('members used on other objects: TypeError (stop rejects)', async () => {
  const d = (n) => Object.getOwnPropertyDescriptor(Profiler.prototype, n);
  for (const n of ['sampleInterval', 'stopped', 'onsamplebufferfull']) {
    assert.throws(() => d(n).get.call({}), isType(TypeError, /Illegal invocation/), n);
    assert.throws(() => d(n).get.call(undefined), isType(TypeError), n);
  }
  assert.throws(() => d('onsamplebufferfull').set.call({}, null), isType(TypeError));
  await assert.rejects(Profiler.prototype.stop.call({}), isType(TypeError, /Illegal invocation/));
  await assert.rejects(Profiler.prototype.stop.call(42), isType(TypeError));
});

test('onsamplebufferfull is an event handler attribute', async () => {
  const p = new Profiler(opts());
  assert.equal(p.onsamplebufferfull, null);
  const f = () => {};
  p.onsamplebufferfull = f;
  assert.equal(p.onsamplebufferfull, f);
  p.onsamplebufferfull = 5; // non-objects are null
  assert.equal(p.onsamplebufferfull, null);
  const o = { handleEvent() {} };
  p.onsamplebufferfull = o;
  assert.equal(p.onsamplebufferfull, o);
  p.onsamplebufferfull = null;
  assert.equal(p.onsamplebufferfull, null);
  await p.stop();
});

test('maxBufferSize converts like an IDL unsigned long (modulo 2^32)', async () => {
  // 2^32 + 2 is 2: the buffer fills after two samples.
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 2 ** 32 + 2 });
  let fired = 0;
  p.addEventListener('samplebufferfull', () => fired++);
  const end = performance.now() + 5000;
  while (!fired && performance.now() < end) {
    spinFor(5);
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(fired, 1);
  assert.equal((await p.stop()).samples.length, 2);
});
