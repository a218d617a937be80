// The perfshim/timeline builds (dist/timeline.mjs, dist/timeline.cjs, the classic script
// dist/perfshim.timeline.auto.js): User Timing + Performance Timeline over the timeline-only
// core, no profiler or memory; the full entry loaded later in the same realm shares its timeline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import vm from 'node:vm';
import * as timeline from '../../dist/timeline.mjs';

const dist = (f) => new URL(`../../dist/${f}`, import.meta.url);

test('the ESM build marks, measures and queries, and has no profiler or memory', () => {
  const { performance, PerformanceMark, PerformanceObserver } = timeline;
  const m = performance.mark('tl-start', { startTime: 1, detail: { a: 1 } });
  assert.ok(m instanceof PerformanceMark);
  assert.deepEqual(m.detail, { a: 1 });
  performance.mark('tl-end', { startTime: 4 });
  assert.equal(performance.measure('tl', 'tl-start', 'tl-end').duration, 3);
  assert.deepEqual(performance.getEntriesByName('tl-start'), [m]);
  assert.equal(typeof PerformanceObserver.supportedEntryTypes, 'object');
  assert.equal('Profiler' in timeline, false);
  assert.equal('toCpuProfile' in timeline, false);
  assert.equal(performance.measureUserAgentSpecificMemory, undefined);
  assert.throws(
    () => performance.measure('x', 'no-such-mark'),
    (e) => e instanceof DOMException && e.name === 'SyntaxError',
  );
  // The embedded core is the timeline-only one: no trace functions.
  assert.ok(!readFileSync(dist('timeline.mjs'), 'utf8').includes('ps_trace_'));
});

test('the CommonJS build is the same realm, and the full entry loaded later shares it', async () => {
  const cjs = createRequire(import.meta.url)('../../dist/timeline.cjs');
  assert.equal(cjs.performance, timeline.performance);
  const full = await import('../../dist/perfshim.mjs');
  assert.equal(full.performance, timeline.performance);
  assert.equal(typeof full.Profiler, 'function');
  assert.equal(full.performance.getEntriesByName('tl-start').length, 1);
  full.performance.clearMarks();
  assert.equal(timeline.performance.getEntriesByType('mark').length, 0);
});

test('the CommonJS build, required first in a process of its own, exports what the ESM build does', () => {
  const script = `const t = require(${JSON.stringify(dist('timeline.cjs').pathname)});
    const m = t.performance.mark('a', { startTime: 2 });
    console.log(JSON.stringify({ keys: Object.keys(t), esModule: t.__esModule,
      isDefault: t.default === t.performance, mark: m instanceof t.PerformanceMark,
      measured: t.performance.measure('m', 'a').startTime, installed: typeof t.install }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  assert.deepEqual(out.keys.sort(), Object.keys(timeline).sort());
  assert.equal(out.esModule, true);
  assert.equal(out.isDefault, true);
  assert.equal(out.mark, true);
  assert.equal(out.measured, 2);
  assert.equal(out.installed, 'function');
});

test('the classic script installs synchronously on a bare global', () => {
  const code = readFileSync(dist('perfshim.timeline.auto.js'), 'utf8');
  const context = vm.createContext({ atob, setTimeout, queueMicrotask, TextDecoder }); // what every browser and worker has
  vm.runInContext(code, context);
  vm.runInContext(
    "performance.mark('a', { startTime: 2 }); globalThis.n = performance.measure('m', 'a').startTime;",
    context,
  );
  assert.equal(context.n, 2);
  assert.equal(typeof context.perfshim.install, 'function');
  assert.equal(typeof context.PerformanceObserver, 'function');
  assert.equal(context.Profiler, undefined);
});
