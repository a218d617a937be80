// The Profiler in Chromium, Firefox and WebKit, by the source each page has: a trace naming the
// page's functions with Chromium's native source (under `Document-Policy: js-profiling`);
// elsewhere the instrumentation source, which starts at once even before any instrumented code
// ran (its samples then have no stack), in a page and in a dedicated worker; argument errors
// first, in every engine; a full buffer, then stop(), resolves with the capped trace. The native
// source's details are in profiler-chromium.test.js, the instrumentation source's in
// profiler-instrument.test.js.
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
    body: `import { getProfiler } from '/glue/profiler/profiler.js';
      try { const p = new (getProfiler())({ sampleInterval: 10, maxBufferSize: 10 });
        p.stop().then((t) => postMessage({ samples: t.samples.length, stacks: t.stacks.length })); }
      catch (e) { postMessage({ dom: e instanceof DOMException, name: e.name, message: e.message }); }`,
  },
};

// Which source each page has in which engine (none of these pages is instrumented).
const SOURCES = {
  chromium: { '/policy.html': 'native', '/plain.html': 'instrument' },
  firefox: { '/policy.html': 'instrument', '/plain.html': 'instrument' },
  webkit: { '/policy.html': 'instrument', '/plain.html': 'instrument' },
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
    if (source === 'native') {
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
      test(`${path}: no instrumented code yet, and new Profiler() starts: samples without a stack`, async () => {
        const r = await pages[path].evaluate(async () => {
          const { Profiler, work, loadError } = window.perfshim;
          const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
          work.outerWork(300);
          await new Promise((resolve) => setTimeout(resolve, 150)); // (the log's hand-over)
          return { loadError, interval: p.sampleInterval, trace: await p.stop() };
        });
        assert.equal(r.loadError, null);
        assert.equal(r.interval, 10);
        assertTraceInvariants(r.trace);
        assert.ok(r.trace.samples.length > 0);
        assert.deepEqual(r.trace.stacks, []);
      });
    }

    test(`${path}: a full buffer fires samplebufferfull once; stop() then resolves with the capped trace`, async () => {
      const r = await pages[path].evaluate(async () => {
        const { Profiler, work } = window.perfshim;
        const p = new Profiler({ sampleInterval: 10, maxBufferSize: 4 });
        let events = 0;
        p.onsamplebufferfull = () => events++;
        await work.spinAndYield(10000, () => events > 0);
        const stopped = p.stopped;
        const trace = await p.stop();
        return { events, stopped, samples: trace.samples.length };
      });
      assert.deepEqual(r, { events: 1, stopped: false, samples: 4 });
    });
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

  test('a dedicated worker with no instrumented code: new Profiler() starts (instrumentation source)', async () => {
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
    assert.equal(r.stacks, 0, JSON.stringify(r));
    assert.equal(typeof r.samples, 'number');
  });

  test('no page errors', async () => {
    for (const page of Object.values(pages)) assert.deepEqual(await page.errors(), []);
  });
});
