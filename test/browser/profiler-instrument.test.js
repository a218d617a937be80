// The Profiler's instrumentation source in browsers without a usable native Profiler (Chromium
// without the js-profiling Document-Policy, Firefox, WebKit): an instrumented page's
// `new Profiler()` returns a trace whose frames name the page's functions at their real
// positions, with the log sampler (no isolation) and the shared-stack sampler (cross-origin
// isolated; WebKit has no SharedArrayBuffer even then, so the log sampler there), and a
// dedicated worker profiles itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launchEngine, forEachEngine, withCollector, ROOT } from './harness.js';
import { assertTraceInvariants } from '../node/profiler-helpers.mjs';
import { instrument } from '../../glue/instrument/transform.js';

const WORK = readFileSync(join(ROOT, 'test/node/fixtures/instrument-work.mjs'), 'utf8');
const PAGE_JS = `
import { getProfiler } from '/glue/profiler/profiler.js';
import * as work from '/inst/work.js';
window.run = async (interval) => {
  const Profiler = getProfiler();
  const p = new Profiler({ sampleInterval: interval, maxBufferSize: 100000 });
  work.alternate(10, 5);
  return { trace: await p.stop(), isolated: !!globalThis.crossOriginIsolated, sab: typeof SharedArrayBuffer };
};
window.inWorker = () => new Promise((resolve, reject) => {
  const w = new Worker('/inst/worker.js', { type: 'module' });
  w.onmessage = (e) => { resolve(e.data); w.terminate(); };
  w.onerror = (e) => reject(new Error(e.message));
});
window.ready = true;
`;
const WORKER_JS = `
import { getProfiler } from '/glue/profiler/profiler.js';
import * as work from '/inst/work.js';
const p = new (getProfiler())({ sampleInterval: 2, maxBufferSize: 100000 });
work.alternate(5, 5);
p.stop().then((trace) => postMessage({ trace }), (e) => postMessage({ error: String(e) }));
`;
const PAGE =
  '<!doctype html><meta charset=utf-8><title>instrumented</title><script type=module src="/inst/page.js"></script>';

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};
const routes = (base) => ({
  '/inst/index.html': { body: withCollector(PAGE) },
  '/inst/page.js': { body: PAGE_JS, type: 'text/javascript' },
  '/inst/worker.js': { body: WORKER_JS, type: 'text/javascript' },
  '/inst/work.js': {
    body: instrument(WORK, { file: 'work.js', url: `${base}/inst/work.js` }).code,
    type: 'text/javascript',
  },
});

/** Serve the pages; `isolated` adds COOP/COEP to every response (workers need it too). */
async function start(isolated) {
  let base = '';
  const r = {};
  const srv = await serve({ routes: r, headers: () => (isolated ? ISOLATION : {}) });
  base = srv.url;
  Object.assign(r, routes(base));
  return srv;
}

function namesAt(t, s) {
  const out = [];
  for (let id = s.stackId; id !== undefined; id = t.stacks[id].parentId)
    out.unshift(t.frames[t.stacks[id].frameId].name);
  return out;
}

function checkTrace(t, url) {
  assertTraceInvariants(t);
  assert.deepEqual(t.resources, [url]);
  const byName = Object.fromEntries(t.frames.map((f) => [f.name, f]));
  assert.deepEqual(byName.heavy, { column: 22, line: 10, name: 'heavy', resourceId: 0 }); // the ( of its parameters, as V8
  assert.deepEqual(byName.spin, { column: 21, line: 3, name: 'spin', resourceId: 0 });
  const stacks = new Set(
    t.samples.filter((s) => s.stackId !== undefined).map((s) => namesAt(t, s).join('>')),
  );
  assert.ok(stacks.has('alternate>heavy>spin'), [...stacks].join(', '));
  assert.ok(stacks.has('alternate>light>spin'), [...stacks].join(', '));
}

forEachEngine((engine) => {
  let plainSrv, isoSrv, browser;
  before(async () => {
    [plainSrv, isoSrv] = await Promise.all([start(false), start(true)]);
    browser = await launchEngine(engine);
  });
  after(async () => {
    await browser?.close();
    await plainSrv?.close();
    await isoSrv?.close();
  });

  /** Open the instrumented page and run `fn` in it; page errors must stay empty. */
  async function inPage(srv, fn) {
    const page = await browser.newPage();
    try {
      await page.goto(`${srv.url}/inst/index.html`);
      await page.waitFor(() => window.ready === true, undefined, { timeout: 30000 });
      const r = await page.evaluate(fn);
      assert.deepEqual(await page.errors(), []);
      return r;
    } finally {
      await page.close();
    }
  }

  for (const isolated of [false, true]) {
    const shared = isolated && engine !== 'webkit';
    const label = isolated
      ? `cross-origin isolated: ${shared ? 'shared-stack' : 'log'} sampler`
      : 'not isolated: log sampler';
    test(`${label}: the trace names the page's functions at their positions`, async () => {
      const srv = isolated ? isoSrv : plainSrv;
      const r = await inPage(srv, () => window.run(1));
      assert.equal(r.isolated, isolated);
      assert.equal(r.sab, shared ? 'function' : 'undefined');
      checkTrace(r.trace, `${srv.url}/inst/work.js`);
    });
  }

  test('a dedicated worker that loads instrumented code profiles itself', async () => {
    const r = await inPage(plainSrv, () => window.inWorker());
    assert.equal(r.error, undefined);
    checkTrace(r.trace, `${plainSrv.url}/inst/work.js`);
  });
});
