// Measure Memory in Chromium: a cross-origin-isolated page (COOP/COEP on 127.0.0.1) with a
// same-origin iframe and a dedicated worker gets the native measurement re-encoded by the core;
// a page that is not isolated gets the labelled performance.memory fallback, or a
// NotSupportedError when even that is missing; a cross-origin iframe and a dedicated worker get
// the spec's SecurityError. Chromium runs with ForceEagerMeasureMemory so the native call does
// not wait for a scheduled GC (about 15 s headless otherwise).
// Chromium only: the native measurement and performance.memory exist only there (Firefox and
// WebKit get the NotSupportedError in memory.test.js).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage } from './harness.js';

const ISOLATED = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
};
const MB = 1024 * 1024;

const page = (body) => ({ body: `<!doctype html><meta charset=utf-8>${body}` });
const routes = {
  '/memory/isolated.html': page(`<iframe id="frame-id" src="/memory/frame.html?from=page"></iframe>
    <script>
      window.workerReady = new Promise((resolve) => {
        window.worker = new Worker('/memory/worker.js');
        worker.onmessage = () => resolve();
      });
      window.frameReady = new Promise((resolve) => {
        const f = document.getElementById('frame-id');
        if (f.contentDocument && f.contentDocument.readyState === 'complete' && f.contentWindow.big) resolve();
        f.addEventListener('load', () => resolve());
      });
    </script>`),
  '/memory/frame.html': page(
    `<script>window.big = new Array(2e5).fill(0).map((_, i) => ({ i }));</script>`,
  ),
  '/memory/worker.js': {
    type: 'text/javascript',
    body: `self.kept = new Array(6553600).fill(0.5); postMessage('ready');`,
  },
  '/memory/plain.html': page('<p>not isolated</p>'),
  '/memory/cross-parent.html': page('<iframe id="x"></iframe>'),
  '/memory/module-worker.js': {
    type: 'text/javascript',
    body: `import { measureUserAgentSpecificMemory } from '/glue/memory/measure-memory.js';
      measureUserAgentSpecificMemory().then(
        () => postMessage({ resolved: true }),
        (e) => postMessage({ type: e.constructor.name, name: e.name, message: e.message,
                             isDOMException: e instanceof DOMException }));`,
  },
};

let server;
let browser;
before(async () => {
  server = await serve({
    headers: (path) =>
      path.startsWith('/memory/plain') || path.startsWith('/memory/cross-parent') ? {} : ISOLATED,
    routes,
  });
  browser = await launch(['--enable-blink-features=ForceEagerMeasureMemory']);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Import the glue in the page and run measureUserAgentSpecificMemory; errors come back as
 *  plain data (type, name, message). */
function measureIn(target) {
  return target.evaluate(async () => {
    const { measureUserAgentSpecificMemory } = await import('/glue/memory/measure-memory.js');
    const t0 = performance.now();
    try {
      const result = await measureUserAgentSpecificMemory();
      return { result, ms: performance.now() - t0 };
    } catch (e) {
      return {
        error: {
          type: e.constructor.name,
          name: e.name,
          message: e.message,
          isDOMException: e instanceof DOMException,
        },
      };
    }
  });
}

function assertShape(m) {
  assert.deepEqual(Object.keys(m).sort(), ['breakdown', 'bytes']);
  assert.equal(
    m.bytes,
    m.breakdown.reduce((a, e) => a + e.bytes, 0),
    'bytes is the sum of the breakdown',
  );
  const zero = m.breakdown.filter(
    (e) => e.bytes === 0 && e.attribution.length === 0 && e.types.length === 0,
  );
  assert.equal(zero.length, 1, 'exactly one extra zero-byte entry');
  for (const e of m.breakdown) {
    assert.deepEqual(Object.keys(e).sort(), ['attribution', 'bytes', 'types']);
    assert.ok(Number.isSafeInteger(e.bytes) && e.bytes >= 0);
  }
}

test('isolated page: native measurement attributes the page, its iframe and its worker', async () => {
  const { page: p, errors } = await openPage(browser, `${server.url}/memory/isolated.html`);
  await p.evaluate(() => Promise.all([window.workerReady, window.frameReady]));
  assert.equal(await p.evaluate(() => crossOriginIsolated), true);
  const { result: m, error, ms } = await measureIn(p);
  assert.equal(error, undefined, JSON.stringify(error));
  assertShape(m);
  const attributions = m.breakdown.flatMap((e) => e.attribution);
  assert.ok(
    attributions.some(
      (a) =>
        a.url === `${server.url}/memory/isolated.html` &&
        a.scope === 'Window' &&
        !('container' in a),
    ),
    'the page: its URL, Window, no container',
  );
  const frame = attributions.find((a) => a.url === `${server.url}/memory/frame.html?from=page`);
  assert.ok(frame, 'the iframe is attributed by its URL');
  assert.deepEqual(frame, {
    url: `${server.url}/memory/frame.html?from=page`,
    container: { id: 'frame-id', src: '/memory/frame.html?from=page' },
    scope: 'Window',
  });
  const worker = m.breakdown.filter((e) =>
    e.attribution.some((a) => a.url === `${server.url}/memory/worker.js`),
  );
  assert.equal(worker.length, 1);
  assert.deepEqual(worker[0].attribution, [
    { url: `${server.url}/memory/worker.js`, scope: 'DedicatedWorkerGlobalScope' },
  ]);
  assert.ok(
    worker[0].bytes >= 48 * MB,
    `the worker holds its 50 MB (${(worker[0].bytes / MB).toFixed(1)} MB)`,
  );
  assert.ok(m.breakdown.some((e) => e.types.includes('JavaScript')));
  assert.ok(ms >= 0);
  console.log(`# Chromium native measurement (ForceEagerMeasureMemory): ${ms.toFixed(1)} ms`);
  assert.deepEqual(errors, []);
  await p.close();
});

test("isolated page: the result is the current draft's shape whatever the native version", async () => {
  const { page: p } = await openPage(browser, `${server.url}/memory/isolated.html`);
  await p.evaluate(() => Promise.all([window.workerReady, window.frameReady]));
  // Feed the normaliser a result in the older draft's shape (userAgentSpecificTypes, no zero
  // entry), as early Chromium versions returned it.
  const m = await p.evaluate(async () => {
    const { buildMeasurement, loadMemoryCore } = await import('/glue/memory/measure-memory.js');
    return buildMeasurement(loadMemoryCore(), {
      native: {
        bytes: 1700000,
        breakdown: [
          {
            bytes: 1000000,
            attribution: [{ url: 'https://example.com', scope: 'Window' }],
            userAgentSpecificTypes: ['JS', 'DOM'],
          },
          {
            bytes: 500000,
            attribution: [
              {
                url: 'cross-origin-url',
                container: { id: 'example-id', src: 'https://foo.com/iframe1' },
                scope: 'cross-origin-aggregated',
              },
            ],
            userAgentSpecificTypes: ['JS'],
          },
          {
            bytes: 200000,
            attribution: [
              {
                url: 'https://example.com/iframe2',
                container: { id: 'example-id', src: 'https://foo.com/iframe1' },
                scope: 'Window',
              },
            ],
            userAgentSpecificTypes: [],
          },
        ],
      },
    });
  });
  assertShape(m);
  assert.equal(m.bytes, 1700000);
  const by = Object.fromEntries(m.breakdown.map((e) => [e.bytes, e]));
  assert.deepEqual(by[500000].attribution, [
    {
      url: 'cross-origin-url',
      container: { id: 'example-id', src: 'https://foo.com/iframe1' },
      scope: 'cross-origin-aggregated',
    },
  ]);
  assert.deepEqual(by[200000].attribution, [
    {
      url: 'https://example.com/iframe2',
      container: { id: 'example-id', src: 'https://foo.com/iframe1' },
      scope: 'Window',
    },
  ]);
  assert.deepEqual([...by[1000000].types].sort(), ['DOM', 'JS']);
  await p.close();
});

test('page without cross-origin isolation: labelled performance.memory fallback', async () => {
  const { page: p } = await openPage(browser, `${server.url}/memory/plain.html`);
  assert.equal(await p.evaluate(() => crossOriginIsolated), false);
  assert.equal(
    await p.evaluate(() => typeof performance.measureUserAgentSpecificMemory),
    'undefined',
  );
  const { result: m, error } = await measureIn(p);
  assert.equal(error, undefined, JSON.stringify(error));
  assertShape(m);
  const url = `${server.url}/memory/plain.html`;
  const js = m.breakdown.filter((e) => e.types.includes('performance.memory'));
  assert.equal(js.length, 1, 'one entry, labelled with its source');
  assert.deepEqual([...js[0].types].sort(), ['JavaScript', 'performance.memory']);
  assert.deepEqual(js[0].attribution, [{ url, scope: 'Window' }]);
  assert.ok(js[0].bytes > 0);
  const wasm = m.breakdown.filter((e) => e.types.includes('WebAssembly'));
  assert.equal(wasm.length, 1, "perfshim's own WebAssembly memory, exact");
  assert.equal(wasm[0].bytes % 65536, 0, 'a whole number of wasm pages');
  await p.close();
});

test('page without isolation nor performance.memory: NotSupportedError saying what enables it', async () => {
  const { page: p } = await openPage(browser, `${server.url}/memory/plain.html`);
  const { error } = await p.evaluate(async () => {
    delete Performance.prototype.memory; // as in Firefox and Safari
    const { measureUserAgentSpecificMemory } = await import('/glue/memory/measure-memory.js');
    try {
      return { result: await measureUserAgentSpecificMemory() };
    } catch (e) {
      return {
        error: {
          type: e.constructor.name,
          name: e.name,
          message: e.message,
          isDOMException: e instanceof DOMException,
        },
      };
    }
  });
  assert.equal(error.isDOMException, true);
  assert.equal(error.name, 'NotSupportedError');
  assert.match(
    error.message,
    /^Failed to execute 'measureUserAgentSpecificMemory' on 'Performance': /,
  );
  assert.match(error.message, /Cross-Origin-Opener-Policy: same-origin/);
  assert.match(error.message, /Cross-Origin-Embedder-Policy: require-corp/);
  await p.close();
});

test('cross-origin iframe: SecurityError (the memory measurement allowed predicate)', async () => {
  const { page: p } = await openPage(browser, `${server.url}/memory/cross-parent.html`);
  // Same server under another host name: another origin.
  const crossUrl = `http://localhost:${server.port}/memory/plain.html`;
  await p.evaluate(
    (src) =>
      new Promise((resolve) => {
        const f = document.getElementById('x');
        f.onload = resolve;
        f.src = src;
      }),
    crossUrl,
  );
  const frame = p.frames().find((f) => f.url() === crossUrl);
  assert.ok(frame, 'the cross-origin frame loaded');
  const { error } = await measureIn(frame);
  assert.equal(error.isDOMException, true);
  assert.equal(error.name, 'SecurityError');
  assert.match(error.message, /top-level origin/);
  await p.close();
});

test("dedicated worker: SecurityError, as the spec's predicate says", async () => {
  const { page: p } = await openPage(browser, `${server.url}/memory/isolated.html`);
  const error = await p.evaluate(
    () =>
      new Promise((resolve) => {
        const w = new Worker('/memory/module-worker.js', { type: 'module' });
        w.onmessage = (e) => resolve(e.data);
        w.onerror = (e) => resolve({ workerError: e.message });
      }),
  );
  assert.equal(error.isDOMException, true, JSON.stringify(error));
  assert.equal(error.name, 'SecurityError');
  await p.close();
});

test('concurrent calls in the isolated page each resolve', async () => {
  const { page: p } = await openPage(browser, `${server.url}/memory/isolated.html`);
  await p.evaluate(() => window.workerReady);
  const results = await p.evaluate(async () => {
    const { measureUserAgentSpecificMemory } = await import('/glue/memory/measure-memory.js');
    const all = await Promise.all([
      measureUserAgentSpecificMemory(),
      measureUserAgentSpecificMemory(),
      measureUserAgentSpecificMemory(),
    ]);
    return { distinct: new Set(all).size, all };
  });
  assert.equal(results.distinct, 3);
  for (const m of results.all) assertShape(m);
  await p.close();
});
