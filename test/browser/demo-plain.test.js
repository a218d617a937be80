// The demo page at /demo/plain/: the same page served without the js-profiling document policy
// and without COOP/COEP, in both modes. The profiler panel shows the flame graph of the
// instrumented workloads (the instrumentation source's log sampler); the memory panel shows the performance.memory fallback (or, were it missing,
// the rejection). Chromium runs here without ForceEagerMeasureMemory, so /demo/'s native
// measurement is pending for seconds: the panel says it is measuring. Screenshots go to
// test-results/demo/.
// Chromium only: it checks Chromium's performance.memory fallback and its pending native call;
// every engine loads /demo/plain/ in demo-engines.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { serve, launch, ROOT } from './harness.js';
import { demoHeaders, demoRoutes } from '../../demo/headers.mjs';

const SHOTS = join(ROOT, 'test-results/demo');

let srv, browser;
before(async () => {
  await mkdir(SHOTS, { recursive: true });
  srv = await serve({ headers: demoHeaders, routes: demoRoutes() });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

for (const mode of ['installed', 'ponyfill']) {
  test(`/demo/plain/ (${mode}): the instrumentation fallback's flame graph and the memory fallback`, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      await page.goto(`${srv.url}/demo/plain/${mode === 'ponyfill' ? '?mode=ponyfill' : ''}`);
      await page.waitForFunction(() => window.__demoReady === true);
      assert.match(await page.locator('#mode').innerText(), /cross-origin isolated no/);
      assert.match(
        await page.locator('#timeline-source').innerText(),
        mode === 'ponyfill' ? /ponyfill/ : /installed over the browser's/,
      );

      // Profiler: no native one here, so the instrumented workloads are sampled through the
      // instrumentation source (log sampler: not isolated) and the flame graph shows them.
      assert.match(
        await page.locator('#profiler-source').innerText(),
        /instrumentation source \(log sampler\)/,
      );
      await page.selectOption('#prof-workload', 'recursive');
      await page.selectOption('#prof-duration', '500');
      await page.click('#btn-profile');
      await page.waitForFunction(
        () => /\bok\b/.test(document.getElementById('prof-status').className),
        null,
        { timeout: 20000 },
      );
      const flame = JSON.parse(
        (await page.locator('#flame').getAttribute('data-functions')) || '[]',
      );
      assert.ok(flame.includes('fibonacciRecursive'), flame.join());
      assert.match(
        await page.locator('#top tbody').innerText(),
        /fibonacciRecursive\s+workloads\.js:7\b/,
      );

      // Memory: not isolated, so the labelled performance.memory fallback (this page only).
      assert.match(
        await page.locator('#memory-source').innerText(),
        /fallback: performance\.memory/,
      );
      await page.click('#btn-memory');
      await page.waitForFunction(() => document.getElementById('mem-status').dataset.done, null, {
        timeout: 20000,
      });
      const done = await page.locator('#mem-status').getAttribute('data-done');
      const status = await page.locator('#mem-status').innerText();
      if (done === 'rejected') {
        assert.match(status, /rejected with NotSupportedError/);
      } else {
        assert.equal(done, 'fallback', status);
        assert.match(status, /performance\.memory/);
        const types = await page
          .locator('#mem-by-type .bar-row')
          .evaluateAll((rows) => rows.map((r) => r.dataset.label));
        assert.ok(
          types.some((t) => t.includes('performance.memory')),
          types.join(' | '),
        );
        const attribution = await page
          .locator('#mem-by-attribution .bar-row')
          .evaluateAll((rows) => rows.map((r) => r.dataset.label));
        assert.deepEqual(attribution, ['this page — /demo/plain/']);
      }
      await page
        .locator('#profiler-panel')
        .screenshot({ path: join(SHOTS, `plain-${mode}-profiler.png`) });
      await page
        .locator('#memory-panel')
        .screenshot({ path: join(SHOTS, `plain-${mode}-memory.png`) });
      await page.screenshot({ path: join(SHOTS, `page-plain-${mode}.png`), fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
}

test('/demo/ without ForceEagerMeasureMemory: the memory panel says it is measuring while Chromium waits for a GC', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await page.goto(`${srv.url}/demo/`);
    await page.waitForFunction(() => window.__demoReady === true);
    await page.click('#btn-memory');
    // Still measuring after a second, or done already (a GC came early): no race on which.
    await page.waitForFunction(
      () => {
        const s = document.getElementById('mem-status');
        return s.dataset.done || /measuring… [1-9]\.\d s/.test(s.textContent);
      },
      null,
      { timeout: 20000 },
    );
    // One snapshot of the panel, so that the measurement cannot end between two reads.
    const now = await page.evaluate(() => {
      const s = document.getElementById('mem-status');
      const disabled = document.getElementById('btn-memory').disabled;
      return { done: s.dataset.done, cls: s.className, text: s.textContent, disabled };
    });
    if (!now.done) {
      assert.match(now.cls, /busy/);
      assert.match(now.text, /next garbage collection/);
      assert.equal(now.disabled, true);
      await page.locator('#memory-panel').screenshot({ path: join(SHOTS, 'memory-measuring.png') });
    }
  } finally {
    await page.close();
  }
});
