// The demo page in Chromium, Firefox and WebKit, at /demo/ (COOP/COEP, js-profiling policy) and
// /demo/plain/ (neither), installed over the browser's APIs: it loads without errors, each
// badge names the source the engine really has, the timeline panel draws the workload's
// measure, the profiler panel draws a flame graph of the workload's functions (native or the
// instrumentation fallback), and the memory panel shows a result where the engine has a source
// and the NotSupportedError otherwise. A screenshot per engine and page goes
// to test-results/demo/<engine>-<page>.png. Interaction details (hover, downloads, file input)
// are in the Chromium suites demo-page.test.js and demo-plain.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { serve, fileRoute, launchEngine, forEachEngine, ROOT } from './harness.js';
import { demoHeaders, demoRoutes } from '../../demo/headers.mjs';

const SHOTS = join(ROOT, 'test-results/demo');

// What each engine has at each path: the profiler and memory sources the badges must name.
// Without a native Profiler the demo loads its workloads through perfshim's transform, so the
// instrumentation source samples them: with the shared-stack sampler where SharedArrayBuffer
// exists (Firefox at the cross-origin isolated /demo/), the log sampler elsewhere (WebKit has no
// SharedArrayBuffer even when isolated).
const EXPECT = {
  chromium: {
    '/demo/': { profiler: /native Profiler/, memory: 'native' },
    '/demo/plain/': { profiler: /instrumentation source \(log sampler\)/, memory: 'fallback' },
  },
  firefox: {
    '/demo/': { profiler: /instrumentation source \(shared-stack sampler\)/, memory: 'rejected' },
    '/demo/plain/': { profiler: /instrumentation source \(log sampler\)/, memory: 'rejected' },
  },
  webkit: {
    '/demo/': { profiler: /instrumentation source \(log sampler\)/, memory: 'rejected' },
    '/demo/plain/': { profiler: /instrumentation source \(log sampler\)/, memory: 'rejected' },
  },
};

let server;
before(async () => {
  await mkdir(SHOTS, { recursive: true });
  // /demo/ through a route too, so that the page carries the harness's error collector.
  const page = fileRoute('demo/index.html');
  server = await serve({
    headers: demoHeaders,
    routes: { ...demoRoutes(), '/demo/': page, '/demo/index.html': page },
  });
});
after(async () => {
  if (server) await server.close();
});

const text = (id) => document.getElementById(id).innerText;

forEachEngine((engine) => {
  let browser;
  before(async () => {
    // Chromium's native memory measurement otherwise waits for a scheduled GC (~15 s headless).
    browser = await launchEngine(engine, {
      args: ['--enable-blink-features=ForceEagerMeasureMemory'],
    });
  });
  after(async () => {
    if (browser) await browser.close();
  });

  for (const [path, expect] of Object.entries(EXPECT[engine])) {
    test(`${path}: every panel, with the sources ${engine} has`, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      try {
        await page.goto(`${server.url}${path}`);
        await page.waitFor(() => window.__demoReady === true, undefined, { timeout: 30000 });
        const badges = await page.evaluate(
          (ids) => ids.map((id) => document.getElementById(id).innerText),
          ['timeline-source', 'profiler-source', 'memory-source'],
        );
        assert.match(badges[0], /installed over the browser's/);

        // Timeline: a mark, a measure, the workload's measure on the waterfall.
        for (const id of ['#btn-mark', '#btn-measure', '#btn-workload']) await page.click(id);
        await page.waitFor(() =>
          document.getElementById('waterfall').textContent.includes('measure: workload'),
        );

        // Profiler.
        if (expect.profiler) {
          assert.match(badges[1], expect.profiler);
          await page.click('#btn-profile');
          const fns = await page.waitFor(
            () => {
              const f = JSON.parse(document.getElementById('flame').dataset.functions || '[]');
              return f.length ? f : null;
            },
            undefined,
            { timeout: 30000 },
          );
          assert.ok(fns.includes('fibonacciRecursive'), fns.join());
        } else {
          assert.match(badges[1], /new Profiler\(\) throws NotAllowedError/);
          assert.match(
            await page.evaluate(text, 'prof-status'),
            /NotAllowedError: Failed to construct 'Profiler'/,
          );
          assert.match(await page.evaluate(text, 'flame-empty'), /not allowed in this document/);
        }

        // Measure Memory.
        assert.match(
          badges[2],
          { native: /^native/, fallback: /^fallback/, rejected: /no honest source/ }[expect.memory],
        );
        await page.click('#btn-memory');
        const done = await page.waitFor(
          () => document.getElementById('mem-status').dataset.done,
          undefined,
          { timeout: 30000 },
        );
        assert.equal(done, expect.memory, await page.evaluate(text, 'mem-status'));
        if (expect.memory === 'rejected') {
          assert.match(await page.evaluate(text, 'mem-status'), /rejected with NotSupportedError/);
        }

        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot(
          join(SHOTS, `${engine}-${path === '/demo/' ? 'demo' : 'plain'}.png`),
          { fullPage: true },
        );
        assert.deepEqual(await page.errors(), []);
      } finally {
        await page.close();
      }
    });
  }
});
