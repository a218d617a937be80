// `perfshim/auto` over a host's own Profiler that refuses (Chromium's without the js-profiling
// document policy throws NotAllowedError): perfshim's Profiler is installed over it without
// `force` and without constructing the native one (that would start a native profile), and
// works; the Chromium pages themselves are in test/browser/profiler-global-over-native.
// This file runs in its own process (node --test), so the globals are its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';

let constructed = 0;
// As Chromium's without the policy: an interface object whose constructor refuses.
class Profiler extends EventTarget {
  constructor() {
    constructed++;
    throw new DOMException('JS profiling is disabled by Document Policy.', 'NotAllowedError');
  }
}
Object.defineProperty(globalThis, 'Profiler', {
  value: Profiler,
  writable: true,
  configurable: true,
  enumerable: false,
});
const NativeProfiler = globalThis.Profiler;
const { installed } = await import('../../glue/auto.js');
const ponyfill = await import('../../glue/index.js');

test("perfshim's Profiler replaces a native one without force; the native one is not started", () => {
  assert.ok(installed.installed.includes('profiler'), JSON.stringify(installed));
  assert.match(installed.reasons.profiler[0], /Document-Policy: js-profiling/);
  assert.equal(globalThis.Profiler, ponyfill.Profiler);
  assert.notEqual(globalThis.Profiler, NativeProfiler);
  assert.equal(constructed, 0);
  const d = Object.getOwnPropertyDescriptor(globalThis, 'Profiler');
  assert.deepEqual(
    [d.writable, d.enumerable, d.configurable],
    [true, false, true],
    'an interface object',
  );
  assert.equal(
    Object.prototype.toString.call(Object.create(globalThis.Profiler.prototype)),
    '[object Profiler]',
  );
});

test('the installed Profiler samples', async () => {
  const p = new globalThis.Profiler({ sampleInterval: 1, maxBufferSize: 1000 });
  assert.ok(p instanceof EventTarget);
  const end = performance.now() + 30;
  while (performance.now() < end);
  const t = await p.stop();
  assert.ok(t.samples.length > 0);
});
