// perfshim/field in Chromium (no js-profiling policy: the instrumentation source), Firefox and
// WebKit: a sampled visit to an instrumented page does slow work, the user navigates away, and
// the beacon reaches a `perfshim collect` handler on 127.0.0.1 (another origin: CORS without a
// preflight); the pprof it writes names the page's functions with their relative costs and the
// visit's labels (wall time per function, from the samples' weights). An unsampled visit loads nothing and sends nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as pprof from 'pprof-format';
import { serve, launchEngine, forEachEngine, ROOT } from './harness.js';
import { instrument } from '../../glue/instrument/transform.js';
import { createCollector } from '../../glue/field/collector.js';

const WORK = readFileSync(join(ROOT, 'test/node/fixtures/instrument-work.mjs'), 'utf8');
const pageJs = (endpoint, sampleRate) => `
import { profileVisits } from '/glue/field/visits.js';
import * as work from '/field/work.js';
window.ctl = profileVisits({ endpoint: ${JSON.stringify(endpoint)}, sampleRate: ${sampleRate},
  windowMs: 400, sampleInterval: 2, labels: { release: 'v7' } });
window.work = () => work.alternate(8, 15);
window.ready = true;
`;
const PAGE = (js) =>
  `<!doctype html><meta charset=utf-8><title>field</title><script type=module src="/field/${js}"></script>`;

/** {leaf name: samples}, {name: total samples}, labels, of a pprof file. */
function readProfile(file) {
  const p = pprof.Profile.decode(gunzipSync(readFileSync(file)));
  const s = (i) => p.stringTable.strings[Number(i)];
  const fn = new Map(p.function.map((f) => [Number(f.id), s(f.name)]));
  const loc = new Map(p.location.map((l) => [Number(l.id), fn.get(Number(l.line[0].functionId))]));
  const total = {};
  for (const smp of p.sample)
    for (const name of new Set(smp.locationId.map((id) => loc.get(Number(id)))))
      total[name] = (total[name] || 0) + Number(smp.value[1]) / 1e6;
  const labels = new Set(p.sample.flatMap((x) => x.label.map((l) => `${s(l.key)}=${s(l.str)}`)));
  return { total, labels };
}

forEachEngine((engine) => {
  let srv, browser, collector, collectorSrv, out, endpoint;
  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'perfshim-field-browser-'));
    collector = createCollector({ out, windowSeconds: 3600 });
    collectorSrv = createServer(collector.handler);
    await new Promise((r) => collectorSrv.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${collectorSrv.address().port}/`;
    const routes = {};
    srv = await serve({ routes });
    Object.assign(routes, {
      '/field/index.html': { body: PAGE('page.js') },
      '/field/unsampled.html': { body: PAGE('unsampled.js') },
      '/field/bye.html': { body: '<!doctype html><title>bye</title>' },
      '/field/page.js': { body: pageJs(endpoint, 1), type: 'text/javascript' },
      '/field/unsampled.js': { body: pageJs(endpoint, 0), type: 'text/javascript' },
      '/field/work.js': {
        body: instrument(WORK, { file: 'work.js', url: `${srv.url}/field/work.js` }).code,
        type: 'text/javascript',
      },
    });
    // The classic-script form as the package ships it: dist/perfshim.field.js, which imports
    // dist/perfshim.field-sampled.mjs from beside it once the view is sampled (build it first
    // with `node tools/build-dist.mjs`).
    Object.assign(routes, {
      '/field/classic.html': {
        body:
          '<!doctype html><meta charset=utf-8><title>classic</title>' +
          `<script src="/dist/perfshim.field.js" data-endpoint="${endpoint}" data-sample-rate="1" data-release="v8"></script>` +
          "<script type=module>import * as work from '/field/work.js'; window.work = () => work.alternate(8, 15); window.ready = true;</script>",
      },
      '/field/classic-unsampled.html': {
        body:
          '<!doctype html><meta charset=utf-8><title>classic</title>' +
          `<script src="/dist/perfshim.field.js" data-endpoint="${endpoint}" data-sample-rate="0"></script>` +
          '<script>window.ready = true;</script>',
      },
    });
    browser = await launchEngine(engine);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    collectorSrv?.close();
  });

  test('a visit with slow work reaches the collector when the user leaves', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${srv.url}/field/index.html`);
      await page.waitFor(() => window.ready === true, undefined, { timeout: 30000 });
      // The load window is over, then the slow work, then its window's upload is made ready.
      await page.waitFor(() => window.ctl.stats.windows >= 1, undefined, { timeout: 30000 });
      await page.evaluate(() => window.work());
      await page.waitFor(() => window.ctl.stats.bytes > 0, undefined, { timeout: 30000 });
      const stats = await page.evaluate(() => window.ctl.stats);
      assert.equal(stats.sampled, true);
      assert.equal(stats.errors, 0);
      assert.ok(stats.bytes <= 65000);
      assert.deepEqual(await page.errors(), []);
      await page.goto(`${srv.url}/field/bye.html`); // pagehide: the beacon
      for (let i = 0; i < 200 && collector.stats.accepted < 1; i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal(collector.stats.accepted, 1, JSON.stringify(collector.stats));
    } finally {
      await page.close();
    }
    const [file] = await collector.close();
    assert.ok(file, 'a pprof file');
    const p = readProfile(file);
    for (const name of ['alternate', 'heavy', 'light', 'spin']) assert.ok(p.total[name] > 0, name);
    // Relative costs: the slow work is where the visit's time went. (heavy against light is the
    // instrumentation source's attribution, tested in profiler-instrument; the collector's
    // arithmetic is exact in test/node/field-collector.)
    const busy = Object.entries(p.total).filter(([n]) => !n.startsWith('('));
    // (spin is alternate's only callee in the slow part, so the two may tie.)
    for (const [, ms] of busy) assert.ok(ms <= p.total.alternate, JSON.stringify(p.total));
    assert.ok(p.total.spin <= p.total.alternate && p.total.heavy <= p.total.alternate);
    assert.ok(p.labels.has('release=v7'));
    assert.ok(p.labels.has(`engine=${engine}`), [...p.labels].join(' '));
    assert.ok(p.labels.has('route=/field/index.html'));
    // The Profiler source that sampled the view: no js-profiling policy, so instrumentation.
    assert.ok(p.labels.has('source=instrumented'), [...p.labels].join(' '));
    assert.match(file, new RegExp(`engine=${engine}`));
  });

  test('the classic script starts from its data attributes and its upload arrives', async () => {
    const before = collector.stats.accepted;
    const page = await browser.newPage();
    try {
      await page.goto(`${srv.url}/field/classic.html`);
      await page.waitFor(() => window.ready === true, undefined, { timeout: 30000 });
      await page.waitFor(() => window.perfshimField.control.stats.windows >= 1, undefined, {
        timeout: 30000,
      });
      await page.evaluate(() => window.work());
      await page.waitFor(() => window.perfshimField.control.stats.bytes > 0, undefined, {
        timeout: 30000,
      });
      assert.deepEqual(await page.errors(), []);
      await page.goto(`${srv.url}/field/bye.html`);
      for (let i = 0; i < 200 && collector.stats.accepted <= before; i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal(collector.stats.accepted, before + 1);
    } finally {
      await page.close();
    }
  });

  test('the classic script of an unsampled view loads nothing more than itself', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${srv.url}/field/classic-unsampled.html`);
      await page.waitFor(() => window.ready === true, undefined, { timeout: 30000 });
      const r = await page.evaluate(() => ({
        stats: window.perfshimField.control.stats,
        loaded: performance
          .getEntriesByType('resource')
          .map((e) => new URL(e.name).pathname)
          .filter((p) => p !== '/favicon.ico'),
      }));
      assert.equal(r.stats.sampled, false);
      assert.deepEqual(r.loaded, ['/dist/perfshim.field.js']);
    } finally {
      await page.close();
    }
  });

  test('an unsampled visit loads no core and sends nothing', async () => {
    const before = collector.stats.accepted + collector.stats.refused;
    const page = await browser.newPage();
    try {
      await page.goto(`${srv.url}/field/unsampled.html`);
      await page.waitFor(() => window.ready === true, undefined, { timeout: 30000 });
      await page.evaluate(() => window.work());
      const r = await page.evaluate(() => ({
        stats: window.ctl.stats,
        loaded: performance.getEntriesByType('resource').map((e) => e.name),
      }));
      assert.equal(r.stats.sampled, false);
      assert.ok(
        !r.loaded.some((u) => /wasm|field\/(core|sampled)|profiler/.test(u)),
        r.loaded.join(' '),
      );
      await page.goto(`${srv.url}/field/bye.html`);
    } finally {
      await page.close();
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(collector.stats.accepted + collector.stats.refused, before);
  });
});
