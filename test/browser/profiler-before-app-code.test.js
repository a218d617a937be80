// A RUM SDK that starts before the app's code (Sentry's "instrument.js first", Datadog's
// <head> script): after the classic `perfshim.auto.js`, `new Profiler()` succeeds at once in a
// page (an instrumented file with no functions loaded first changes nothing) and in a dedicated
// worker, before any instrumented code ran; the app's instrumented script loads and runs after
// it, and stop() has the app's frames. Chromium (without the js-profiling policy), Firefox and
// WebKit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launchEngine, forEachEngine, ROOT } from './harness.js';
import { assertTraceInvariants, samplesIn } from '../node/profiler-helpers.mjs';
import { instrument } from '../../glue/instrument/transform.js';

const WORK = readFileSync(join(ROOT, 'test/node/fixtures/instrument-work.mjs'), 'utf8')
  .replace(/^export /gm, '')
  .concat('\nalternate(10, 5);\n'); // the app runs as it loads
const START =
  'try { self.early = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 }); }' +
  ' catch (e) { self.earlyError = e.name + ": " + e.message; }';
const PAGE =
  '<!doctype html><meta charset=utf-8><title>SDK first</title>' +
  '<script src="/dist/perfshim.auto.js"></script>' +
  '<script src="/rum/empty.js"></script>' +
  `<script>${START}</script>` +
  '<script src="/rum/app.js"></script>' +
  '<script>window.ready = true;</script>';
const WORKER = `importScripts('/dist/perfshim.auto.js', '/rum/empty.js');
${START}
importScripts('/rum/app.js');
(self.early ? self.early.stop() : Promise.resolve(null)).then(
  (trace) => postMessage({ trace, earlyError: self.earlyError }),
  (e) => postMessage({ earlyError: String(e) }));`;

function checkTrace(t, url) {
  assertTraceInvariants(t);
  assert.ok(samplesIn(t, 'heavy').length > 0, 'heavy sampled');
  assert.ok(samplesIn(t, 'light').length > 0, 'light sampled');
  const heavy = t.frames.find((f) => f.name === 'heavy');
  assert.equal(t.resources[heavy.resourceId], url);
}

let srv;
before(async () => {
  const routes = {
    '/rum/index.html': { body: PAGE },
    '/rum/worker.js': { body: WORKER, type: 'text/javascript' },
  };
  srv = await serve({ routes });
  const script = (code, name) => ({
    body: instrument(code, { file: name, url: `${srv.url}/rum/${name}`, sourceType: 'script' })
      .code,
    type: 'text/javascript',
  });
  routes['/rum/app.js'] = script(WORK, 'app.js');
  routes['/rum/empty.js'] = script('self.emptyRan = true;', 'empty.js');
});
after(async () => {
  await srv?.close();
});

forEachEngine((engine) => {
  let browser, page;
  before(async () => {
    browser = await launchEngine(engine);
    page = await browser.newPage();
    await page.goto(`${srv.url}/rum/index.html`);
    await page.waitFor(() => window.ready === true, undefined, { timeout: 30000 });
  });
  after(async () => {
    await browser?.close();
  });

  test("a page: the profiler started before the app's script has the app's frames", async () => {
    const r = await page.evaluate(async () => ({
      earlyError: self.earlyError ?? null,
      emptyRan: self.emptyRan === true,
      trace: self.early ? await self.early.stop() : null,
    }));
    assert.equal(r.earlyError, null);
    assert.equal(r.emptyRan, true);
    checkTrace(r.trace, `${srv.url}/rum/app.js`);
    assert.deepEqual(await page.errors(), []);
  });

  test('a dedicated worker: the same, with importScripts', async () => {
    const r = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const w = new Worker('/rum/worker.js');
          w.onmessage = (e) => {
            resolve(e.data);
            w.terminate();
          };
          w.onerror = (e) => resolve({ earlyError: `worker error: ${e.message}` });
        }),
    );
    assert.equal(r.earlyError ?? null, null);
    checkTrace(r.trace, `${srv.url}/rum/app.js`);
  });
});
