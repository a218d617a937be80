// Chromium's global Profiler after the classic `perfshim.auto.js` (what RUM SDKs read from
// `window.Profiler`): perfshim's, installed over the native one without `force` and without
// starting a native profile, and with native User Timing left in place. Without
// `Document-Policy: js-profiling` it samples an instrumented script through the
// instrumentation source; with the policy it samples through the native Profiler (frames of
// an uninstrumented script). Chromium only: the other engines have no native Profiler.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, ROOT } from './harness.js';
import { assertTraceInvariants, samplesIn } from '../node/profiler-helpers.mjs';
import { instrument } from '../../glue/instrument/transform.js';

const WORK = readFileSync(join(ROOT, 'test/node/fixtures/instrument-work.mjs'), 'utf8')
  .replace(/^export /gm, '')
  .concat('\nwindow.app = { alternate };\n');
// Counts the native Profilers made (perfshim captures this subclass as the native one).
const COUNTER = `<script>window.nativeMade = 0; window.NativeProfiler = Profiler;
window.Profiler = class Profiler extends NativeProfiler {
  constructor(o) { window.nativeMade++; super(o); }
};</script>`;
const PAGE =
  '<!doctype html><meta charset=utf-8><title>global profiler</title>' +
  COUNTER +
  '<script src="/dist/perfshim.auto.js"></script>' +
  '<script src="/rum/app.js"></script><script src="/rum/plain.js"></script>' +
  '<script>window.afterLoad = window.nativeMade; window.ready = true;</script>';
// Not instrumented: only a native profile can name it.
const PLAIN = `function nativeOnly(ms) { const end = performance.now() + ms; let x = 0;
  while (performance.now() < end) x++; return x; }`;

let srv, browser;
const pages = {};
before(async () => {
  const routes = {
    '/policy.html': { body: PAGE, headers: { 'Document-Policy': 'js-profiling' } },
    '/plain.html': { body: PAGE },
    '/rum/plain.js': { body: PLAIN, type: 'text/javascript' },
  };
  srv = await serve({ routes });
  routes['/rum/app.js'] = {
    body: instrument(WORK, { file: 'app.js', url: `${srv.url}/rum/app.js`, sourceType: 'script' })
      .code,
    type: 'text/javascript',
  };
  browser = await launch();
  for (const path of ['/plain.html', '/policy.html']) {
    const { page, errors } = await openPage(browser, `${srv.url}${path}`);
    await page.waitForFunction(() => window.ready === true);
    pages[path] = { page, errors };
  }
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

/** Profile the app's and the plain script's functions with the global Profiler. */
const profile = (path) =>
  pages[path].page.evaluate(async () => {
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    window.app.alternate(20, 10);
    nativeOnly(200);
    return { trace: await p.stop(), made: window.nativeMade, afterLoad: window.afterLoad };
  });

for (const path of ['/plain.html', '/policy.html']) {
  test(`${path}: the global Profiler is perfshim's, browser-shaped, and native User Timing stays`, async () => {
    const r = await pages[path].page.evaluate(async () => {
      const native = (f) => Function.prototype.toString.call(f).includes('[native code]');
      const d = Object.getOwnPropertyDescriptor(window, 'Profiler');
      let brand = null;
      try {
        await Profiler.prototype.stop.call({});
      } catch (e) {
        brand = e.name;
      }
      const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10 });
      const shape = {
        ours: Profiler !== window.NativeProfiler && Profiler === window.perfshim.Profiler,
        descriptor: [d.writable, d.enumerable, d.configurable],
        tag: Object.prototype.toString.call(p),
        proto: Object.getPrototypeOf(p) === Profiler.prototype && p instanceof EventTarget,
        brand,
        userTiming: [performance.mark, performance.measure, PerformanceMark].every(native),
      };
      await p.stop();
      return shape;
    });
    assert.deepEqual(r, {
      ours: true,
      descriptor: [true, false, true],
      tag: '[object Profiler]',
      proto: true,
      brand: 'TypeError',
      userTiming: true,
    });
  });
}

test('/plain.html (no policy): the instrumentation source samples the instrumented script', async () => {
  const r = await profile('/plain.html');
  assert.equal(r.afterLoad, 0, 'no native profile at install');
  assertTraceInvariants(r.trace);
  assert.ok(samplesIn(r.trace, 'heavy').length >= 3, 'heavy sampled');
  const heavy = r.trace.frames.find((f) => f.name === 'heavy');
  assert.equal(r.trace.resources[heavy.resourceId], `${srv.url}/rum/app.js`);
  assert.equal(samplesIn(r.trace, 'nativeOnly').length, 0, 'not instrumented, not native');
  assert.deepEqual(pages['/plain.html'].errors, []);
});

test('/policy.html: native samples, also of an uninstrumented script', async () => {
  const r = await profile('/policy.html');
  assert.equal(r.afterLoad, 0, 'no native profile at install');
  assert.ok(r.made >= 1, 'the native Profiler sampled');
  assertTraceInvariants(r.trace);
  assert.ok(samplesIn(r.trace, 'nativeOnly').length >= 3, 'nativeOnly sampled');
  assert.ok(samplesIn(r.trace, 'heavy').length >= 3, 'heavy sampled');
  const f = r.trace.frames.find((x) => x.name === 'nativeOnly');
  assert.equal(r.trace.resources[f.resourceId], `${srv.url}/rum/plain.js`);
  assert.deepEqual(pages['/policy.html'].errors, []);
});
