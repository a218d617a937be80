// After `import 'perfshim/auto'` in Node, the host's own entry types keep working: 'resource'
// entries from fetch() stay visible in getEntries*() (merged with marks in time order) and are
// delivered to the installed PerformanceObserver; Node's 'function' entries from
// perf_hooks.performance.timerify() reach the installed PerformanceObserver (delegated to the
// native observer). Node 20 does not buffer 'function' entries in its timeline, so
// getEntriesByType('function') mirrors the host's (checked against the native method).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import * as perfHooks from 'node:perf_hooks';

const nativeGetByType = Object.getPrototypeOf(performance).getEntriesByType;
const NativeObserver = globalThis.PerformanceObserver;
const { installed } = await import('../../glue/auto.js');

/** Wait until `done()` holds or 20 s pass (observer delivery is a task away; a loaded machine
 *  can take longer than any fixed wait). The caller's assertions then say what arrived. */
async function until(done, ms = 20000) {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}
let server, base;

before(async () => {
  server = createServer((req, res) => res.end('ok'));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((r) => server.close(r)));

test('installed (sanity)', () => {
  assert.ok(installed.installed.includes('timeline'));
  assert.notEqual(globalThis.PerformanceObserver, NativeObserver);
});

test("supportedEntryTypes lists Node's own types plus mark and measure", () => {
  const types = PerformanceObserver.supportedEntryTypes;
  for (const t of NativeObserver.supportedEntryTypes) assert.ok(types.includes(t), t);
  assert.ok(types.includes('mark') && types.includes('measure'));
  assert.deepEqual([...types].sort(), [...types]);
});

test('fetch() resource entries are visible in getEntriesByType, getEntriesByName and getEntries', async () => {
  const m1 = performance.mark('before-fetch');
  const url = `${base}/first`;
  await (await fetch(url)).text();
  await until(() => performance.getEntriesByType('resource').some((e) => e.name === url));
  const m2 = performance.mark('after-fetch');
  const resources = performance.getEntriesByType('resource').filter((e) => e.name === url);
  assert.equal(resources.length, 1, 'one resource entry for the fetch');
  const r = resources[0];
  assert.equal(r.entryType, 'resource');
  assert.ok(
    r instanceof PerformanceEntry,
    'host entries are PerformanceEntry instances for the installed interface',
  );
  assert.equal(typeof r.toJSON, 'function');
  assert.deepEqual(performance.getEntriesByName(url), [r]);
  assert.deepEqual(performance.getEntriesByName(url, 'resource'), [r]);
  assert.deepEqual(performance.getEntriesByName(url, 'mark'), []);
  const all = performance.getEntries();
  const i1 = all.indexOf(m1),
    ir = all.indexOf(r),
    i2 = all.indexOf(m2);
  assert.ok(i1 >= 0 && ir >= 0 && i2 >= 0, 'marks and the resource entry are all in getEntries()');
  assert.ok(i1 < ir && ir < i2, `merged in time order: ${i1} < ${ir} < ${i2}`);
  for (let i = 1; i < all.length; i++)
    assert.ok(all[i - 1].startTime <= all[i].startTime, `sorted at ${i}`);
});

test('the PerformanceEntry getters read host entries', async () => {
  const r = performance.getEntriesByType('resource')[0];
  const get = (k) => Object.getOwnPropertyDescriptor(PerformanceEntry.prototype, k).get.call(r);
  assert.equal(get('name'), r.name);
  assert.equal(get('entryType'), 'resource');
  assert.equal(get('startTime'), r.startTime);
});

test('a new fetch is delivered to the installed PerformanceObserver ({type: "resource"})', async () => {
  const seen = [];
  const po = new PerformanceObserver((list, obs, options) =>
    seen.push({ names: list.getEntries().map((e) => e.name), options }),
  );
  po.observe({ type: 'resource' });
  await (await fetch(`${base}/observed`)).text();
  await until(() => seen.length > 0);
  po.disconnect();
  assert.deepEqual(
    seen.flatMap((s) => s.names),
    [`${base}/observed`],
  );
  assert.equal(typeof seen[0].options.droppedEntriesCount, 'number');
});

test("buffered: true for a host type delivers the host's earlier entries", async () => {
  const seen = [];
  const po = new PerformanceObserver((list) => seen.push(...list.getEntries().map((e) => e.name)));
  po.observe({ type: 'resource', buffered: true });
  await until(() => seen.includes(`${base}/first`));
  po.disconnect();
  assert.ok(seen.includes(`${base}/first`), JSON.stringify(seen));
});

test('one observer gets host and perfshim types ({entryTypes: ["mark", "resource"]})', async () => {
  const seen = [];
  const po = new PerformanceObserver((list) =>
    seen.push(...list.getEntries().map((e) => `${e.entryType}:${e.name}`)),
  );
  po.observe({ entryTypes: ['mark', 'resource'] });
  performance.mark('mixed');
  await (await fetch(`${base}/mixed`)).text();
  await until(() => seen.includes('mark:mixed') && seen.includes(`resource:${base}/mixed`));
  po.disconnect();
  assert.ok(seen.includes('mark:mixed'), JSON.stringify(seen));
  assert.ok(seen.includes(`resource:${base}/mixed`), JSON.stringify(seen));
});

test('timerify() function entries reach the installed PerformanceObserver', async () => {
  const seen = [];
  const po = new PerformanceObserver((list) => seen.push(...list.getEntries()));
  po.observe({ type: 'function' });
  const f = perfHooks.performance.timerify(function timedWork() {
    return 7;
  });
  assert.equal(f(), 7);
  await until(() => seen.length > 0);
  po.disconnect();
  assert.equal(seen.length, 1, 'one function entry');
  assert.equal(seen[0].entryType, 'function');
  assert.equal(seen[0].name, 'timedWork');
  assert.ok(seen[0] instanceof PerformanceEntry);
});

test('timerify() function entries with entryTypes: delivered or in takeRecords(), exactly once', async () => {
  const delivered = [];
  const po = new PerformanceObserver((list) => delivered.push(...list.getEntries()));
  po.observe({ entryTypes: ['function', 'mark'] });
  perfHooks.performance.timerify(function taken() {})();
  performance.mark('beside-function');
  // Delivery is a task away; a loaded machine may take longer than a fixed wait.
  await until(() => delivered.length >= 2);
  const all = [...delivered, ...po.takeRecords()].map((e) => `${e.entryType}:${e.name}`);
  po.disconnect();
  assert.deepEqual(all.sort(), ['function:taken', 'mark:beside-function']);
});

test('getEntriesByType("function") is what the host buffers', () => {
  const ours = performance.getEntriesByType('function');
  const host = nativeGetByType.call(performance, 'function');
  assert.deepEqual(
    ours.map((e) => e.name),
    host.map((e) => e.name),
  );
});

test('clearMarks() does not remove host entries', () => {
  performance.clearMarks();
  performance.clearMeasures();
  assert.ok(performance.getEntriesByType('resource').length >= 3);
});
