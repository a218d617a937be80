// Measure Memory in Chromium, Firefox and WebKit, through the installed
// performance.measureUserAgentSpecificMemory(): where the engine has something to measure
// (Chromium: the native call when cross-origin isolated, performance.memory otherwise) a result
// of the draft's shape; where nothing can be measured (Firefox ESR, WebKitGTK: neither exists)
// a NotSupportedError saying what would enable it, isolated or not; a cross-origin iframe and a
// dedicated worker get the spec's SecurityError first, in every engine. The Chromium sources'
// details are in memory-chromium.test.js.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launchEngine, forEachEngine } from './harness.js';

const ISOLATED = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
};

// Install (auto), then measure; the outcome is plain data.
const MEASURE_FN = `window.measure = () => performance.measureUserAgentSpecificMemory().then(
    (result) => ({ result }),
    (e) => ({ error: { type: e.constructor.name, name: e.name, message: e.message, dom: e instanceof DOMException } }));
  window.ready = true;`;
const MEASURE = `<script type=module>
  import '/glue/auto.js';
  ${MEASURE_FN}
</script>`;
// The classic-script bundle: one self-contained file, Measure Memory included.
const MEASURE_CLASSIC = `<script src="/dist/perfshim.auto.js"></script><script>${MEASURE_FN}</script>`;
const html = (body) => ({ body: `<!doctype html><meta charset=utf-8>${body}` });
const routes = {
  '/isolated.html': html(MEASURE),
  '/plain.html': html(MEASURE),
  '/classic.html': html(MEASURE_CLASSIC),
  '/cross-parent.html': html('<iframe id="x"></iframe>'),
  '/cross-frame.html': html(`<script type=module>
    import '/glue/auto.js';
    performance.measureUserAgentSpecificMemory().then(
      () => parent.postMessage({ resolved: true }, '*'),
      (e) => parent.postMessage({ name: e.name, dom: e instanceof DOMException, message: e.message }, '*'));
  </script>`),
  '/memory-worker.js': {
    type: 'text/javascript',
    body: `import { measureUserAgentSpecificMemory } from '/glue/memory/measure-memory.js';
      measureUserAgentSpecificMemory().then(() => postMessage({ resolved: true }),
        (e) => postMessage({ name: e.name, dom: e instanceof DOMException, message: e.message }));`,
  },
};

// What each engine can measure, per page ('native', 'performance.memory' or null: nothing).
const MEASURABLE = {
  chromium: {
    '/isolated.html': 'native',
    '/plain.html': 'performance.memory',
    '/classic.html': 'performance.memory',
  },
  firefox: { '/isolated.html': null, '/plain.html': null, '/classic.html': null },
  webkit: { '/isolated.html': null, '/plain.html': null, '/classic.html': null },
};

let server;
before(async () => {
  server = await serve({
    routes,
    headers: (path) =>
      path === '/plain.html' || path === '/classic.html' || path.startsWith('/cross-')
        ? {}
        : ISOLATED,
  });
});
after(async () => {
  if (server) await server.close();
});

function assertShape(m) {
  assert.deepEqual(Object.keys(m).sort(), ['breakdown', 'bytes']);
  assert.equal(
    m.bytes,
    m.breakdown.reduce((a, e) => a + e.bytes, 0),
    'bytes is the sum of the breakdown',
  );
  assert.equal(
    m.breakdown.filter((e) => e.bytes === 0 && !e.attribution.length && !e.types.length).length,
    1,
  );
}

forEachEngine((engine) => {
  let browser, page;
  before(async () => {
    // Chromium's native call otherwise waits for a scheduled GC (~15 s headless).
    browser = await launchEngine(engine, {
      args: ['--enable-blink-features=ForceEagerMeasureMemory'],
    });
  });
  after(async () => {
    if (browser) await browser.close();
  });
  // A page per test: a COOP page opened from a page without it switches browsing context
  // groups, which puppeteer's Firefox navigation does not follow.
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  for (const [path, source] of Object.entries(MEASURABLE[engine])) {
    test(`${path}: ${source ? `measured (${source})` : 'nothing to measure: NotSupportedError saying what would enable it'}`, async () => {
      await page.goto(`${server.url}${path}`);
      await page.waitFor(() => window.ready === true);
      const isolated = await page.evaluate(() => crossOriginIsolated);
      if (path === '/isolated.html' && engine !== 'webkit')
        assert.equal(isolated, true, 'COOP/COEP make the page cross-origin isolated');
      const r = await page.evaluate(() => window.measure());
      if (source) {
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        assertShape(r.result);
        if (source === 'performance.memory')
          assert.ok(r.result.breakdown.some((e) => e.types.includes('performance.memory')));
      } else {
        assert.equal(r.result, undefined);
        assert.deepEqual(
          [r.error.type, r.error.name, r.error.dom],
          ['DOMException', 'NotSupportedError', true],
        );
        assert.match(
          r.error.message,
          /^Failed to execute 'measureUserAgentSpecificMemory' on 'Performance': /,
        );
        assert.match(r.error.message, /Cross-Origin-Embedder-Policy: require-corp/);
      }
      assert.deepEqual(await page.errors(), []);
    });
  }

  test('a cross-origin iframe: SecurityError (the memory measurement allowed predicate)', async () => {
    await page.goto(`${server.url}/cross-parent.html`);
    // The same server under another host name: another origin.
    const r = await page.evaluate(
      (src) =>
        new Promise((resolve) => {
          addEventListener('message', (e) => resolve(e.data), { once: true });
          document.getElementById('x').src = src;
          // A new process for the other origin, then the glue and its wasm: slow on a loaded machine.
          setTimeout(() => resolve({ timeout: true }), 60000);
        }),
      `http://localhost:${server.port}/cross-frame.html`,
    );
    assert.deepEqual([r.dom, r.name], [true, 'SecurityError'], JSON.stringify(r));
    assert.match(r.message, /top-level origin/);
  });

  test('a dedicated worker: SecurityError', async () => {
    await page.goto(`${server.url}/isolated.html`);
    const r = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const w = new Worker('/memory-worker.js', { type: 'module' });
          w.onmessage = (e) => {
            resolve(e.data);
            w.terminate();
          };
          w.onerror = (e) => resolve({ workerError: e.message });
        }),
    );
    assert.deepEqual([r.dom, r.name], [true, 'SecurityError'], JSON.stringify(r));
  });
});
