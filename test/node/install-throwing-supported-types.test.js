// A host whose PerformanceObserver.supportedEntryTypes getter throws (an earlier polyfill's, a
// detached realm's): perfshim still loads, and its timeline and observers work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

const index = new URL('../../glue/index.js', import.meta.url).href;

test('a throwing supportedEntryTypes getter does not stop perfshim loading', () => {
  // In its own process: the host is captured when perfshim is first imported.
  const src = `
    globalThis.PerformanceObserver = class {
      static get supportedEntryTypes() { throw new Error('host getter'); }
      observe() {}
      disconnect() {}
    };
    const { performance, PerformanceObserver } = await import(${JSON.stringify(index)});
    performance.mark('a');
    console.log(JSON.stringify({
      marks: performance.getEntriesByType('mark').map((e) => e.name),
      supported: PerformanceObserver.supportedEntryTypes,
    }));`;
  const out = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', src], { encoding: 'utf8' }),
  );
  assert.deepEqual(out.marks, ['a']);
  assert.ok(out.supported.includes('mark') && out.supported.includes('measure'));
});
