// CommonJS: require() of the package entry (dist/perfshim.cjs, built by `make dist`) gives the
// same realm as the ES module entry (one timeline per JavaScript realm), and require of
// 'perfshim/auto' installs. Own process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(`${root}dist/perfshim.cjs`) && existsSync(`${root}dist/auto.cjs`);
const skip = built ? false : 'dist/perfshim.cjs is not built yet (run `make dist`)';

test('require("perfshim") (self-reference through package.json exports) loads the CommonJS build', {
  skip,
}, () => {
  const cjs = require('perfshim');
  assert.equal(require.resolve('perfshim'), `${root}dist/perfshim.cjs`);
  for (const k of [
    'performance',
    'PerformanceEntry',
    'PerformanceMark',
    'PerformanceMeasure',
    'PerformanceObserver',
    'PerformanceObserverEntryList',
    'install',
    'setBufferLimit',
    'droppedEntries',
  ]) {
    assert.ok(k in cjs, `exports ${k}`);
  }
  const m = cjs.performance.mark('cjs', { detail: { a: 1 } });
  assert.ok(m instanceof cjs.PerformanceMark);
  assert.deepEqual(m.detail, { a: 1 });
  assert.deepEqual(cjs.performance.getEntriesByName('cjs'), [m]);
});

test('the CommonJS and ES module entries share one realm and one timeline', { skip }, async () => {
  const cjs = require('perfshim');
  const esm = await import('perfshim');
  assert.equal(cjs.performance, esm.performance);
  assert.equal(cjs.PerformanceMark, esm.PerformanceMark);
  const m = esm.performance.mark('esm-side');
  assert.deepEqual(cjs.performance.getEntriesByName('esm-side'), [m]);
});

test('require("perfshim/auto") installs on the globals synchronously', { skip }, () => {
  const auto = require('perfshim/auto');
  const cjs = require('perfshim');
  assert.ok(auto.installed && Array.isArray(auto.installed.installed));
  assert.ok(auto.installed.installed.includes('timeline'), JSON.stringify(auto.installed));
  assert.equal(globalThis.PerformanceMark, cjs.PerformanceMark);
  assert.equal(globalThis.performance.mark, cjs.performance.mark);
  const m = performance.mark('after-cjs-auto');
  assert.deepEqual(cjs.performance.getEntriesByName('after-cjs-auto'), [m]);
});

test('the CommonJS build throws the same exception types', { skip }, () => {
  const { performance: p } = require('perfshim');
  assert.throws(
    () => p.measure('x', 'no-such-mark'),
    (e) => e instanceof DOMException && e.name === 'SyntaxError',
  );
  assert.throws(
    () => p.measure('x', { start: 1, duration: 1, end: 2 }),
    (e) => e instanceof TypeError,
  );
  assert.throws(
    () => p.mark('x', { detail: () => {} }),
    (e) => e instanceof DOMException && e.name === 'DataCloneError',
  );
});
