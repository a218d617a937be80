// After `import 'perfshim/auto'` in Node, code that took its PerformanceObserver from
// 'node:perf_hooks' (the common `const { performance, PerformanceObserver } =
// require('perf_hooks')` pattern; that export cannot be replaced) must keep receiving the marks
// and measures made through perf_hooks' `performance` (the same object as globalThis.performance).
// "Install, never break the host" (DESIGN.md). Own process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PerformanceObserver as NodeObserver, performance as nodePerformance } from 'node:perf_hooks';
import '../../glue/auto.js';

const tick = () => new Promise((r) => setTimeout(r, 30));

test('perf_hooks\' own PerformanceObserver still receives marks and measures after install', async () => {
  assert.notEqual(globalThis.PerformanceObserver, NodeObserver, 'sanity: installed');
  const seen = [];
  const po = new NodeObserver((list) => seen.push(...list.getEntries().map((e) => `${e.entryType}:${e.name}`)));
  po.observe({ entryTypes: ['mark', 'measure'] });
  nodePerformance.mark('ph-mark');
  nodePerformance.measure('ph-measure', 'ph-mark');
  await tick();
  po.disconnect();
  assert.deepEqual(seen, ['mark:ph-mark', 'measure:ph-measure']);
});

test('after that, perfshim\'s timeline holds each entry once (no duplicate from the host)', () => {
  assert.equal(nodePerformance.getEntriesByName('ph-mark').length, 1);
  assert.equal(performance.getEntriesByName('ph-measure').length, 1);
});
