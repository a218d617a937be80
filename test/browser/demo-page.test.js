// The demo page end to end in headless Chromium, served as `make demo` serves it (the headers
// come from demo/headers.mjs): /demo/ with the js-profiling document policy and COOP/COEP, in
// both modes (installed over the native APIs, ponyfill). Each panel is run and checked, the
// exports are downloaded and parsed (the trace exporters only when the build has them), and
// screenshots go to test-results/demo/. Chromium runs with ForceEagerMeasureMemory so the native
// measureUserAgentSpecificMemory() does not wait ~15 s for a scheduled GC.
// Chromium only: it drives hover, downloads and the file input through playwright, and checks
// Chromium's native sources; every engine loads the demo in demo-engines.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serve, launch, ROOT } from './harness.js';
import { demoHeaders, demoRoutes } from '../../demo/headers.mjs';

const SHOTS = join(ROOT, 'test-results/demo');
const VIEWPORT = { width: 1280, height: 800 };

let srv, browser, page, errors;
before(async () => {
  await mkdir(SHOTS, { recursive: true });
  // DEMO_DIST=path/to/perfshim.mjs serves another build of the package entry (e.g. a candidate
  // with the trace exporters) in place of the committed dist/perfshim.mjs.
  const routes = demoRoutes();
  if (process.env.DEMO_DIST) {
    routes['/dist/perfshim.mjs'] = {
      type: 'text/javascript; charset=utf-8',
      body: await readFile(process.env.DEMO_DIST),
    };
  }
  srv = await serve({ headers: demoHeaders, routes });
  browser = await launch(['--enable-blink-features=ForceEagerMeasureMemory']);
  ({ page, errors } = await open('/demo/'));
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

async function open(path) {
  const p = await browser.newPage({ viewport: VIEWPORT });
  const errs = [];
  p.on('pageerror', (e) => errs.push(String(e)));
  await p.goto(srv.url + path);
  await p.waitForFunction(() => window.__demoReady === true);
  return { page: p, errors: errs };
}

const text = (p, sel) => p.locator(sel).innerText();

/** Run the profiler panel with the given options; resolves once the status has settled. */
async function profile(p, { workload, interval = '10', buffer = '1000', duration = '500' }) {
  await p.selectOption('#prof-workload', workload);
  await p.selectOption('#prof-interval', interval);
  await p.selectOption('#prof-buffer', buffer);
  await p.selectOption('#prof-duration', duration);
  // A fresh status, so that the wait below cannot see the previous run's.
  await p.evaluate(() => {
    const s = document.getElementById('prof-status');
    delete s.dataset.bufferfull;
    s.className = 'status';
  });
  await p.click('#btn-profile');
  await p.waitForFunction(
    () => {
      const s = document.getElementById('prof-status');
      return (
        !document.getElementById('btn-profile').disabled && /\b(ok|warn|error)\b/.test(s.className)
      );
    },
    null,
    { timeout: 20000 },
  );
  return {
    status: await text(p, '#prof-status'),
    flame: JSON.parse((await p.locator('#flame').getAttribute('data-functions')) || '[]'),
    top: await text(p, '#top tbody'),
  };
}

async function measureMemory(p) {
  await p.evaluate(() => {
    delete document.getElementById('mem-status').dataset.done;
  });
  await p.click('#btn-memory');
  await p.waitForFunction(() => document.getElementById('mem-status').dataset.done, null, {
    timeout: 40000,
  });
  return {
    done: await p.locator('#mem-status').getAttribute('data-done'),
    attribution: await p
      .locator('#mem-by-attribution .bar-row')
      .evaluateAll((rows) => rows.map((r) => r.dataset.label)),
    types: await p
      .locator('#mem-by-type .bar-row')
      .evaluateAll((rows) => rows.map((r) => r.dataset.label)),
  };
}

async function download(p, selector) {
  const [d] = await Promise.all([p.waitForEvent('download'), p.click(selector)]);
  return { name: d.suggestedFilename(), json: JSON.parse(await readFile(await d.path(), 'utf8')) };
}

test('installed over the native APIs: the header and the badges say so', async () => {
  assert.match(await text(page, '#mode'), /cross-origin isolated yes/);
  assert.match(await text(page, '#timeline-source'), /installed over the browser's/);
  assert.match(await text(page, '#profiler-source'), /Chromium's native Profiler, re-encoded/);
  assert.match(await text(page, '#memory-source'), /native/);
  assert.equal(
    await page.evaluate(() => performance.mark.toString().includes('[native code]')),
    false,
    'perfshim is installed',
  );
});

test('timeline: the waterfall shows our marks and measures beside the native entries', async () => {
  await page.click('#btn-mark');
  await page.click('#btn-measure');
  await page.click('#btn-workload');
  await page.waitForFunction(() =>
    document.getElementById('waterfall').textContent.includes('measure: workload'),
  );
  const labels = await page.locator('#waterfall text').allTextContents();
  for (const want of [
    'mark: demo-ready',
    'mark: click-1',
    'measure: since click-1',
    'measure: sort',
    'measure: json',
    'measure: sum',
    'measure: workload',
    'mark: workload-start',
  ]) {
    assert.ok(labels.includes(want), `${want} in ${labels.join(' | ')}`);
  }
  assert.ok(
    labels.some((l) => l.startsWith('navigation:')),
    'the native navigation entry',
  );
  assert.ok(
    labels.some((l) => l.startsWith('resource:')),
    'native resource entries',
  );
  assert.ok(
    labels.some((l) => l.startsWith('paint:')),
    'native paint entries',
  );
  const titles = await page
    .locator('#waterfall rect')
    .evaluateAll((rects) => rects.map((r) => r.dataset.tip));
  const workload = titles.find((t) => t.startsWith('measure "workload"'));
  assert.match(workload, /duration: \d+\.\d ms/);
  assert.match(workload, /detail: \{"steps":3\}/);
  // The tooltip shows it on hover.
  await page.locator('#waterfall rect').nth(titles.indexOf(workload)).hover();
  assert.match(await page.locator('#waterfall-tip').innerText(), /measure "workload"/);
  await page.locator('#timeline-panel').screenshot({ path: join(SHOTS, 'timeline.png') });
});

test("profiler: each workload's functions are in the flame graph and the top table, with the workloads.js URL", async () => {
  const expect = {
    recursive: ['fibonacciRecursive'],
    sorting: ['insertionSortNumbers', 'bubbleSortNumbers'],
    json: ['buildCatalog', 'catalogRoundTrip'],
    dom: ['domBuildRows', 'domMeasureLayout'],
  };
  for (const [workload, names] of Object.entries(expect)) {
    const r = await profile(page, {
      workload,
      duration: workload === 'recursive' ? '1000' : '500',
    });
    assert.match(r.status, /samples/, `${workload}: ${r.status}`);
    assert.ok(
      names.some((n) => r.flame.includes(n)),
      `${workload}: one of ${names} in the flame graph (${r.flame}); status: ${r.status}`,
    );
    assert.ok(
      names.some((n) => r.top.includes(n)),
      `${workload}: one of ${names} in the top table`,
    );
    assert.match(r.top, /workloads\.js:\d+/, 'frames carry the workloads.js URL and a line');
    if (workload === 'sorting')
      await page
        .locator('#profiler-panel')
        .screenshot({ path: join(SHOTS, 'profiler-sorting.png') });
  }
  // Hovering a frame shows its name, time and position: every box the flame graph drew, found in
  // the canvas's own pixels (a profile's shape differs from run to run: no fixed point).
  const flame = page.locator('#flame');
  const functions = JSON.parse(await flame.getAttribute('data-functions'));
  const boxes = await flameBoxes(page);
  assert.ok(boxes.length > 1, `the root and at least one frame under it: ${JSON.stringify(boxes)}`);
  for (const box of boxes) {
    await flame.hover({ position: box });
    const tip = await page.locator('#flame-tip').innerText();
    assert.match(tip, /total \d+ ms \(\d+ samples\), self \d+ ms/, JSON.stringify(box));
    const name = tip.split('\n')[0];
    assert.ok(name.startsWith('all samples') || functions.includes(name), `${name} was drawn`);
    if (box.y > 18) assert.match(tip, /\n(\(no resource\)|\S+:(\d+|\?):(\d+|\?))$/, 'a position');
  }
  await page.locator('#profiler-panel').screenshot({ path: join(SHOTS, 'profiler.png') });
  await page.mouse.move(0, 0);
});

/** The centre of each box the flame graph drew (rows of 18 CSS px, as demo/profiler-panel.js
 *  draws them; boxes 1 px apart), read from the canvas's pixels; boxes narrower than 4 px, where
 *  a pointer could fall between two, are left out. */
function flameBoxes(p) {
  return p.locator('#flame').evaluate((canvas) => {
    const ROW = 18;
    const dpr = canvas.width / canvas.clientWidth;
    const { data, width } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const boxes = [];
    for (let y = 4; y * dpr < canvas.height; y += ROW) {
      const row = Math.floor(y * dpr) * width;
      let start = -1;
      for (let px = 0; px <= width; px++) {
        const drawn = px < width && data[(row + px) * 4 + 3] === 255; // (edges blend)
        if (drawn && start < 0) start = px;
        if (!drawn && start >= 0) {
          if ((px - start) / dpr >= 4) boxes.push({ x: Math.round((start + px) / 2 / dpr), y });
          start = -1;
        }
      }
    }
    return boxes;
  });
}

test('profiler: a small buffer fires samplebufferfull, and stop() then resolves with it', async () => {
  const r = await profile(page, { workload: 'sorting', buffer: '20', duration: '2000' });
  assert.equal(
    await page.locator('#prof-status').getAttribute('data-bufferfull'),
    'true',
    r.status,
  );
  assert.match(r.status, /samplebufferfull fired after \d+ ms/);
  assert.match(r.status, /stop\(\) resolved with the first 20 samples/);
  assert.ok(r.flame.length > 0, 'the capped trace is drawn');
  await page
    .locator('#profiler-panel')
    .screenshot({ path: join(SHOTS, 'profiler-bufferfull.png') });
  // Leave a trace behind for the export test and the screenshots.
  await profile(page, { workload: 'sorting', duration: '1000' });
});

test('memory: the native measurement attributes memory to the iframe and the worker', async () => {
  const r = await measureMemory(page);
  assert.equal(r.done, 'native', await text(page, '#mem-status'));
  assert.ok(
    r.attribution.some((l) => l.startsWith('iframe #memory-frame')),
    r.attribution.join(' | '),
  );
  assert.ok(
    r.attribution.some((l) => l.startsWith('dedicated worker') && l.endsWith('worker.js')),
    r.attribution.join(' | '),
  );
  assert.ok(
    r.attribution.some((l) => l.startsWith('this page')),
    r.attribution.join(' | '),
  );
  assert.ok(
    r.types.some((l) => l.includes('JavaScript')),
    r.types.join(' | '),
  );
  assert.match(await text(page, '#memory-source'), /native \(cross-origin isolated\)/);
  await page.locator('#memory-panel').screenshot({ path: join(SHOTS, 'memory.png') });
});

test('exports: the timeline as getEntries() JSON', async () => {
  const { name, json } = await download(page, '[data-export="entries"]');
  assert.equal(name, 'perfshim-timeline.entries.json');
  assert.ok(Array.isArray(json));
  assert.ok(
    json.some(
      (e) => e.entryType === 'mark' && e.name === 'demo-ready' && e.detail.mode === 'installed',
    ),
  );
  assert.ok(json.some((e) => e.entryType === 'measure' && e.name === 'workload'));
  assert.ok(json.some((e) => e.entryType === 'navigation'));
});

// Each exporter: the file downloads and parses, with a few of its format's fields; skipped with
// the reason when this build of the package does not export it yet.
const TRACE_EXPORTS = [
  [
    'toCpuProfile',
    'cpuprofile',
    /\.cpuprofile$/,
    (j) => {
      assert.ok(Array.isArray(j.nodes) && Array.isArray(j.samples));
      assert.equal(typeof j.startTime, 'number');
      assert.ok(
        j.nodes.some((n) =>
          /insertionSortNumbers|bubbleSortNumbers/.test(n.callFrame.functionName),
        ),
      );
    },
  ],
  [
    'toTraceEvents',
    'trace-event',
    /\.trace\.json$/,
    (j) => {
      const events = Array.isArray(j) ? j : j.traceEvents;
      assert.ok(Array.isArray(events) && events.length > 0);
      assert.ok(events.every((e) => typeof e.ph === 'string'));
    },
  ],
  [
    'toFirefoxProfile',
    'firefox',
    /\.firefox\.json$/,
    (j) => {
      assert.equal(typeof j.meta, 'object');
      assert.ok(Array.isArray(j.threads) && j.threads.length > 0);
    },
  ],
  [
    'toSpeedscope',
    'speedscope',
    /\.speedscope\.json$/,
    (j) => {
      assert.match(j.$schema, /speedscope/);
      assert.ok(Array.isArray(j.profiles) && Array.isArray(j.shared.frames));
      assert.ok(j.shared.frames.some((f) => /insertionSortNumbers|bubbleSortNumbers/.test(f.name)));
    },
  ],
  [
    'toTraceEvents',
    'timeline-trace-event',
    /^perfshim-timeline\.trace\.json$/,
    (j) => {
      const events = Array.isArray(j) ? j : j.traceEvents;
      const names = events.map((e) => e.name);
      assert.ok(names.includes('demo-ready'), 'the marks');
      assert.ok(names.includes('workload'), 'the measures');
    },
  ],
];
for (const [fn, button, file, check] of TRACE_EXPORTS) {
  test(`exports: ${button} (perfshim.${fn})`, async (t) => {
    const has = await page.evaluate(
      async (f) => typeof (await import('/dist/perfshim.mjs'))[f] === 'function',
      fn,
    );
    const b = page.locator(`[data-export="${button}"]`);
    if (!has) {
      assert.equal(await b.isDisabled(), true);
      assert.match(await b.getAttribute('title'), /not available in this build/);
      t.skip(
        `perfshim.${fn} is not in this build of dist/perfshim.mjs (the button says so and is disabled)`,
      );
      return;
    }
    const { name, json } = await download(page, `[data-export="${button}"]`);
    assert.match(name, file);
    check(json);
  });
}

test('import: the exported .cpuprofile opens again through perfshim.fromCpuProfile', async (t) => {
  const has = await page.evaluate(async () => {
    const m = await import('/dist/perfshim.mjs');
    return typeof m.fromCpuProfile === 'function' && typeof m.toCpuProfile === 'function';
  });
  if (!has) {
    assert.equal(await page.locator('#prof-import').isDisabled(), true);
    t.skip(
      'perfshim.fromCpuProfile/toCpuProfile are not in this build of dist/perfshim.mjs (the control is disabled)',
    );
    return;
  }
  const { name, json } = await download(page, '[data-export="cpuprofile"]');
  await page.setInputFiles('#prof-import', {
    name,
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(json)),
  });
  await page.waitForFunction(() =>
    /fromCpuProfile/.test(document.getElementById('prof-status').textContent),
  );
  assert.match(
    await text(page, '#prof-status'),
    new RegExp(`Opened ${name.replace('.', '\\.')} with fromCpuProfile\\(\\): \\d+ samples`),
  );
  const flame = JSON.parse(await page.locator('#flame').getAttribute('data-functions'));
  assert.ok(
    flame.some((n) => /insertionSortNumbers|bubbleSortNumbers/.test(n)),
    flame.join(),
  );
});

test('the whole page, installed (also saved as demo/screenshot.png)', async () => {
  await page.locator('#export-panel').screenshot({ path: join(SHOTS, 'export.png') });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, 'page-installed.png'), fullPage: true });
  await page.screenshot({ path: join(SHOTS, 'page-installed-1280x800.png') });
  if (process.env.DEMO_SCREENSHOT)
    await copyFile(join(SHOTS, 'page-installed.png'), join(ROOT, 'demo/screenshot.png'));
  assert.deepEqual(errors, []);
});

test('ponyfill: globals untouched, every panel still works', async () => {
  const { page: p, errors: errs } = await open('/demo/?mode=ponyfill');
  try {
    assert.match(await text(p, '#timeline-source'), /ponyfill/);
    assert.equal(
      await p.evaluate(() => performance.mark.toString().includes('[native code]')),
      true,
      'the native mark stays',
    );
    await p.click('#btn-workload');
    await p.waitForFunction(() =>
      document.getElementById('waterfall').textContent.includes('measure: workload'),
    );
    const r = await profile(p, { workload: 'recursive' });
    assert.ok(r.flame.includes('fibonacciRecursive'), r.flame.join());
    assert.match(await text(p, '#profiler-source'), /Chromium's native Profiler, re-encoded/);
    const m = await measureMemory(p);
    assert.equal(m.done, 'native');
    assert.ok(m.attribution.some((l) => l.startsWith('iframe #memory-frame')));
    assert.ok(m.attribution.some((l) => l.startsWith('dedicated worker')));
    await p.screenshot({ path: join(SHOTS, 'page-ponyfill.png'), fullPage: true });
    assert.deepEqual(errs, []);
  } finally {
    await p.close();
  }
});
