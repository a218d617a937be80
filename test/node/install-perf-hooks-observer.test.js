// After `import 'perfshim/auto'` in Node, code that took its PerformanceObserver from
// 'node:perf_hooks' (the common `const { performance, PerformanceObserver } =
// require('perf_hooks')` pattern; that export cannot be replaced) must keep receiving the marks
// and measures made through perf_hooks' `performance` (the same object as globalThis.performance).
// "Install, never break the host" (DESIGN.md). Own process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PerformanceObserver as NodeObserver,
  performance as nodePerformance,
} from 'node:perf_hooks';
import '../../glue/auto.js';

/** Wait until `done()` holds or 20 s pass (delivery is a task away; a loaded machine can take
 *  longer than any fixed wait). The caller's assertions then say what arrived. */
async function until(done, ms = 20000) {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

test("perf_hooks' own PerformanceObserver still receives marks and measures after install", async () => {
  assert.notEqual(globalThis.PerformanceObserver, NodeObserver, 'sanity: installed');
  const seen = [];
  const po = new NodeObserver((list) =>
    seen.push(...list.getEntries().map((e) => `${e.entryType}:${e.name}`)),
  );
  po.observe({ entryTypes: ['mark', 'measure'] });
  nodePerformance.mark('ph-mark');
  nodePerformance.measure('ph-measure', 'ph-mark');
  await until(() => seen.length >= 2);
  po.disconnect();
  assert.deepEqual(seen, ['mark:ph-mark', 'measure:ph-measure']);
});

test("after that, perfshim's timeline holds each entry once (no duplicate from the host)", () => {
  assert.equal(nodePerformance.getEntriesByName('ph-mark').length, 1);
  assert.equal(performance.getEntriesByName('ph-measure').length, 1);
});

test("entries reaching perf_hooks' observer keep name, startTime, duration and detail", async () => {
  const seen = [];
  const po = new NodeObserver((list) => seen.push(...list.getEntries()));
  po.observe({ type: 'mark' });
  po.observe({ type: 'measure' });
  nodePerformance.mark('valued', { startTime: 12.5, detail: { k: 'v' } });
  nodePerformance.measure('valued-measure', { start: 2, end: 9, detail: [1] });
  await until(() => seen.length >= 2);
  po.disconnect();
  const byName = Object.fromEntries(seen.map((e) => [e.name, e]));
  assert.deepEqual(
    [byName.valued.entryType, byName.valued.startTime, byName.valued.duration],
    ['mark', 12.5, 0],
  );
  assert.deepEqual(byName.valued.detail, { k: 'v' });
  assert.deepEqual(
    [
      byName['valued-measure'].entryType,
      byName['valued-measure'].startTime,
      byName['valued-measure'].duration,
    ],
    ['measure', 2, 7],
  );
  assert.deepEqual(byName['valued-measure'].detail, [1]);
});

test("after disconnect(), perf_hooks' observer receives nothing more", async () => {
  const seen = [];
  const po = new NodeObserver((list) => seen.push(...list.getEntries().map((e) => e.name)));
  po.observe({ type: 'mark' });
  po.disconnect();
  // Observers are notified together: once one still connected has the mark, so would po.
  const later = [];
  const connected = new NodeObserver((list) => later.push(...list.getEntries()));
  connected.observe({ type: 'mark' });
  nodePerformance.mark('after-disconnect');
  await until(() => later.length > 0);
  connected.disconnect();
  assert.equal(later.length, 1, 'sanity: the connected observer had the mark');
  assert.deepEqual(seen, []);
});

test("perf_hooks' observer with buffered: true gets the marks already in the (perfshim) timeline", async () => {
  nodePerformance.mark('buffered-before-observe');
  const seen = [];
  const po = new NodeObserver((list) => seen.push(...list.getEntries().map((e) => e.name)));
  po.observe({ type: 'mark', buffered: true });
  await until(() => seen.includes('buffered-before-observe'));
  po.disconnect();
  assert.ok(seen.includes('buffered-before-observe'), JSON.stringify(seen));
});
