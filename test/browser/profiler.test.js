// The Profiler in Chromium, Firefox and WebKit, by the source each page has: a trace naming the
// page's functions where a source exists (Chromium's native one under `Document-Policy:
// js-profiling`), else a NotAllowedError saying what would enable it; argument errors first, in
// every engine; a dedicated worker has no source yet. The native source's details are in
// profiler-chromium.test.js. A new source (the instrumentation fallback) is one more row in
// SOURCES and, if it needs one, a page in PAGES.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launchEngine, forEachEngine } from './harness.js';
import { assertTraceInvariants, samplesIn } from '../node/profiler-helpers.mjs';

const PAGE =
  '<!doctype html><meta charset=utf-8><title>profiler</title>' +
  '<script type=module src="/test/browser/fixtures/profiler-page.js"></script>';
const PAGES = {
  '/policy.html': { body: PAGE, headers: { 'Document-Policy': 'js-profiling' } },
  '/plain.html': { body: PAGE },
  '/profiler-worker.js': {
    type: 'text/javascript',
    body: `import { getProfiler } from '/glue/profiler.js';
      try { new (getProfiler())({ sampleInterval: 10, maxBufferSize: 10 }); postMessage({ constructed: true }); }
      catch (e) { postMessage({ dom: e instanceof DOMException, name: e.name, message: e.message }); }`,
  },
};

// Which page has a profiling source in which engine (null: none, NotAllowedError expected).
const SOURCES = {
  chromium: { '/policy.html': 'native', '/plain.html': null },
  firefox: { '/policy.html': null, '/plain.html': null },
  webkit: { '/policy.html': null, '/plain.html': null },
};

let server;
before(async () => {
  server = await serve({ routes: PAGES });
});
after(async () => {
  if (server) await server.close();
});

forEachEngine((engine) => {
  let browser;
  const pages = {};
  before(async () => {
    browser = await launchEngine(engine);
    for (const path of Object.keys(SOURCES[engine])) {
      pages[path] = await browser.newPage();
      await pages[path].goto(`${server.url}${path}`);
      await pages[path].waitFor(() => window.ready === true);
    }
  });
  after(async () => {
    if (browser) await browser.close();
  });

  for (const [path, source] of Object.entries(SOURCES[engine])) {
    if (source) {
      test(`${path}: the ${source} source samples the page's functions`, async () => {
        const r = await pages[path].evaluate(async () => {
          const { Profiler, work, loadError } = window.perfshim;
          const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
          work.outerWork(300);
          work.spinFor(50);
          return {
            trace: await p.stop(),
            loadError,
            url: new URL('/test/browser/fixtures/profiler-work.js', location.href).href,
          };
        });
        assert.equal(r.loadError, null);
        assertTraceInvariants(r.trace);
        const inOuter = samplesIn(r.trace, 'outerWork');
        assert.ok(inOuter.length >= 3, `${inOuter.length} samples in outerWork`);
        const frame = r.trace.frames.find((f) => f.name === 'outerWork');
        assert.equal(r.trace.resources[frame.resourceId], r.url);
        assert.ok(frame.line > 0 && frame.column > 0);
      });
    } else {
      test(`${path}: no profiling source, so new Profiler() throws a NotAllowedError saying what would enable it`, async () => {
        const r = await pages[path].evaluate(() => {
          const { Profiler, loadError } = window.perfshim;
          const grab = (f) => {
            try {
              f();
              return null;
            } catch (e) {
              return [e instanceof DOMException, e.name, e.message];
            }
          };
          return {
            loadError,
            defined: typeof Profiler,
            error: grab(() => new Profiler({ sampleInterval: 10, maxBufferSize: 10 })),
          };
        });
        assert.equal(r.loadError, null);
        assert.equal(r.defined, 'function');
        assert.deepEqual(r.error.slice(0, 2), [true, 'NotAllowedError']);
        assert.match(r.error[2], /^Failed to construct 'Profiler': /);
        assert.match(
          r.error[2],
          engine === 'chromium' ? /Document-Policy: js-profiling/ : /not available in this context/,
        );
      });
    }
  }

  test('argument errors come first, with the WebIDL types, whatever the source', async () => {
    for (const page of Object.values(pages)) {
      const r = await page.evaluate(() => {
        const { Profiler } = window.perfshim;
        const grab = (f) => {
          try {
            f();
            return 'constructed';
          } catch (e) {
            return [e.constructor.name, e.name];
          }
        };
        return [
          [],
          [{}],
          [{ sampleInterval: 10 }],
          [{ maxBufferSize: 10 }],
          [5],
          [{ sampleInterval: NaN, maxBufferSize: 1 }],
          [{ sampleInterval: -1, maxBufferSize: 1 }],
        ].map((args) => grab(() => new Profiler(...args)));
      });
      assert.deepEqual(r, [
        ['TypeError', 'TypeError'],
        ['TypeError', 'TypeError'],
        ['TypeError', 'TypeError'],
        ['TypeError', 'TypeError'],
        ['TypeError', 'TypeError'],
        ['TypeError', 'TypeError'],
        ['RangeError', 'RangeError'],
      ]);
    }
  });

  test('a dedicated worker with no instrumented code: NotAllowedError naming the fix', async () => {
    const r = await pages['/plain.html'].evaluate(
      () =>
        new Promise((resolve) => {
          const w = new Worker('/profiler-worker.js', { type: 'module' });
          w.onmessage = (e) => {
            resolve(e.data);
            w.terminate();
          };
          w.onerror = (e) => resolve({ workerError: e.message });
        }),
    );
    assert.deepEqual([r.dom, r.name], [true, 'NotAllowedError'], JSON.stringify(r));
    assert.match(r.message, /instrument the scripts \(`npx perfshim instrument/);
  });

  test('no page errors', async () => {
    for (const page of Object.values(pages)) assert.deepEqual(await page.errors(), []);
  });
});
