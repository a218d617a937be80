// The classic scripts (dist/perfshim.auto.js, dist/perfshim.timeline.auto.js) on a host whose
// User Timing conforms: loading installs the Profiler and forwarders for the missing Measure
// Memory methods and runs none of the rest (the realm is made on first use), `perfshim` has the
// module entry's members, and the first use finds everything installed as the module entry's
// install() would have it. Each case is a fresh vm context over Node's own conforming classes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import * as perfHooks from 'node:perf_hooks';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The realm perfshim made in the context (read inside it: a symbol-keyed global does not show
 *  on the context object). */
const realmOf = (ctx) => vm.runInContext("globalThis[Symbol.for('perfshim.realm')]", ctx);

/** A context whose performance and entry classes are Node's (they conform: no `process`, so
 *  perfshim does not take it for Node), with the classic script `file` run in it. */
function load(file) {
  const { performance, PerformanceMark, PerformanceMeasure, PerformanceEntry } = perfHooks;
  const { PerformanceObserver, PerformanceObserverEntryList } = perfHooks;
  const ctx = vm.createContext({
    performance,
    PerformanceMark,
    PerformanceMeasure,
    PerformanceEntry,
    PerformanceObserver,
    PerformanceObserverEntryList,
    EventTarget,
    Event,
    atob,
    structuredClone,
    TextEncoder,
    TextDecoder,
    setTimeout,
    clearTimeout,
    queueMicrotask,
  });
  vm.runInContext(readFileSync(`${root}${file}`, 'utf8'), ctx);
  return ctx;
}

test('perfshim.auto.js: the Profiler and Measure Memory forwarders installed, the realm not made', () => {
  const ctx = load('dist/perfshim.auto.js');
  assert.equal(realmOf(ctx), undefined, 'the entry ran at load');
  const d = Object.getOwnPropertyDescriptor(ctx, 'Profiler');
  assert.equal(typeof d.value, 'function', 'the global Profiler is a data property');
  assert.deepEqual([d.writable, d.enumerable, d.configurable], [true, false, true]);
  assert.equal(d.value.name, 'Profiler');
  const home = Object.getPrototypeOf(ctx.performance);
  const forwarder = home.measureUserAgentSpecificMemory;
  assert.equal(forwarder.name, 'measureUserAgentSpecificMemory');
  assert.equal(forwarder.length, 0);
  assert.equal('prototype' in forwarder, false, 'an operation is not a constructor');
  assert.equal(typeof home.measureMemory, 'function');
  assert.equal(realmOf(ctx), undefined, 'reading the installed members ran the entry');

  // The first use of a member loads the entry: the same Profiler, the realm's Memory methods.
  assert.equal(ctx.perfshim.Profiler, d.value);
  const realm = realmOf(ctx);
  assert.ok(realm, 'the realm is made on first use');
  assert.equal(realm.Profiler, d.value);
  assert.equal(home.measureUserAgentSpecificMemory, realm.methods.measureUserAgentSpecificMemory);
  assert.equal(home.measureMemory, realm.methods.measureMemory);
  // install() again has nothing left to do: the features are recorded as installed.
  assert.deepEqual([...ctx.perfshim.install().installed], []);
  delete home.measureUserAgentSpecificMemory; // (Node's own prototype: leave it as it was)
  delete home.measureMemory;
});

test('the members of perfshim are the module entries', async () => {
  for (const [file, entry] of [
    ['dist/perfshim.auto.js', 'glue/index.js'],
    ['dist/perfshim.timeline.auto.js', 'glue/timeline-only.js'],
  ]) {
    const ctx = load(file);
    const expected = Object.keys(await import(`${root}${entry}`)).sort();
    assert.deepEqual(Object.keys(ctx.perfshim).sort(), expected, file);
    assert.equal(realmOf(ctx), undefined, `${file}: listing the members ran the entry`);
    ctx.perfshim.performance.mark('m', { detail: { a: 1 } });
    assert.equal(ctx.perfshim.performance.getEntriesByName('m')[0].detail.a, 1);
    // Once loaded, the members are the entry's values (read-only data properties).
    const d = Object.getOwnPropertyDescriptor(ctx.perfshim, 'performance');
    assert.equal(d.value, realmOf(ctx).performance);
    assert.equal(d.writable, false);
    const home = Object.getPrototypeOf(ctx.performance);
    delete home.measureUserAgentSpecificMemory;
    delete home.measureMemory;
  }
});

test('a measureUserAgentSpecificMemory forwarder called first loads the entry and answers', async () => {
  const ctx = load('dist/perfshim.auto.js');
  const home = Object.getPrototypeOf(ctx.performance);
  const forwarder = home.measureUserAgentSpecificMemory;
  try {
    // (no window or worker here: the realm's method rejects as it would, a promise either way)
    const p = forwarder.call(ctx.performance);
    assert.ok(realmOf(ctx), 'the call loaded the entry');
    assert.equal(typeof p.then, 'function');
    await p.catch((e) => assert.equal(typeof e.name, 'string'));
    // the realm's brand check, through the forwarder (a TypeError of the context's realm)
    await assert.rejects(forwarder.call({}), { name: 'TypeError' });
  } finally {
    delete home.measureUserAgentSpecificMemory;
    delete home.measureMemory;
  }
});

test('the classic script loaded twice: one Profiler, one realm, whichever copy loads first', () => {
  const ctx = load('dist/perfshim.auto.js');
  const Profiler = ctx.Profiler;
  vm.runInContext(readFileSync(`${root}dist/perfshim.auto.js`, 'utf8'), ctx);
  assert.equal(ctx.Profiler, Profiler, 'the second copy replaced the global Profiler');
  // The second copy's entry loads first, then the first copy's (kept from before the reload).
  assert.equal(ctx.perfshim.Profiler, Profiler);
  assert.equal(realmOf(ctx).Profiler, Profiler);
  const home = Object.getPrototypeOf(ctx.performance);
  assert.equal(
    home.measureUserAgentSpecificMemory,
    realmOf(ctx).methods.measureUserAgentSpecificMemory,
  );
  delete home.measureUserAgentSpecificMemory;
  delete home.measureMemory;
});
