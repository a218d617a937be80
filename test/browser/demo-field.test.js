// The demo's Field panel in Chromium (/demo/, native Profiler): simulated visits of releases A
// and B reach the demo's field collector (another origin); the panel draws the aggregate as a
// flame graph with the workloads' functions, its label filter narrows it to one release, and the
// diff view names the JSON workload, which release B made slower.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch } from './harness.js';
import { demoHeaders, demoRoutes } from '../../demo/headers.mjs';
import { startFieldCollector } from '../../demo/field-server.mjs';

let srv, browser, field;
before(async () => {
  field = await startFieldCollector();
  srv = await serve({ headers: demoHeaders, routes: demoRoutes({ fieldCollector: field.url }) });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
  await field?.close();
});

test('Field panel: flame graph of the simulated visits, label filter, diff of B against A', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(`${srv.url}/demo/`);
    await page.waitForFunction(() => window.__demoReady === true);
    await page.waitForFunction(() =>
      /simulate visits/.test(document.getElementById('field-status').innerText),
    );
    await page.click('#btn-field');
    await page.waitForSelector('#field-slower', { timeout: 60000 });
    assert.equal(field.collector.stats.accepted, 4, JSON.stringify(field.collector.stats));
    const flame = JSON.parse(
      (await page.locator('#field-flame').getAttribute('data-functions')) || '[]',
    );
    for (const name of ['insertionSortNumbers', 'catalogRoundTrip'])
      assert.ok(flame.includes(name), flame.join());
    // The diff view's first row (largest rise in total share) is the JSON workload's.
    const slower = await page.locator('#field-slower').innerText();
    assert.ok(['jsonSlice', 'catalogRoundTrip', 'buildCatalog'].includes(slower), slower);
    const first = await page.locator('#field-diff tbody tr:first-child td:first-child').innerText();
    assert.equal(first, slower);
    // The release filter: release A alone.
    await page.selectOption('#field-release', 'A');
    const all = JSON.parse(
      (await page.locator('#field-flame').getAttribute('data-functions')) || '[]',
    );
    assert.match(all[0], /^all samples/);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
