// User Timing and Performance Timeline in a dedicated worker, in Chromium, Firefox and WebKit,
// with perfshim installed with force over the engine's native APIs: as a module worker importing the glue, and as a classic
// worker loading the classic build (dist/perfshim.auto.js) with importScripts(). A worker is not
// a Window: PerformanceTiming names are ordinary mark names there, and measure() with one throws
// a TypeError. One browser per engine, one page that starts both workers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve, launchEngine, forEachEngine } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const classicBuilt = existsSync(`${ROOT}dist/perfshim.auto.js`);

// The checks, run inside the worker after install; posts a plain object of results.
const CHECKS = `
// True once cond() is (polled every 10 ms), false after a generous deadline: a loaded machine
// delivers late, never on a schedule.
async function until(cond, ms = 10000) {
  for (const end = performance.now() + ms; !cond(); await new Promise((r) => setTimeout(r, 10)))
    if (performance.now() > end) return false;
  return true;
}
async function runChecks(installed, nativeSeen) {
  const err = (f) => {
    try { f(); return 'no exception'; } catch (e) {
      return { ctor: e && e.constructor && e.constructor.name, name: e && e.name, dom: e instanceof DOMException, code: e && e.code };
    }
  };
  const out = { installed, nativeSeen };
  out.replaced = self.PerformanceMark !== nativeSeen.PerformanceMark && self.PerformanceObserver !== nativeSeen.PerformanceObserver;
  delete nativeSeen.PerformanceMark; delete nativeSeen.PerformanceObserver;
  out.isWindow = typeof Window !== 'undefined';
  const m = performance.mark('w', { startTime: 5, detail: { k: [1] } });
  performance.mark('w2', { startTime: 9 });
  const ms = performance.measure('wm', 'w', 'w2');
  out.mark = [m.name, m.entryType, m.startTime, m.duration, JSON.stringify(m.detail), m instanceof PerformanceMark];
  out.measure = [ms.startTime, ms.duration];
  out.sameObject = performance.getEntriesByName('w')[0] === m;
  out.carried = performance.getEntriesByName('native-worker-pre').map((e) => [e.entryType, e.startTime]);
  out.timingMark = err(() => performance.mark('navigationStart'));
  out.timingMarkName = performance.getEntriesByName('navigationStart', 'mark').length;
  out.timingMeasure = err(() => performance.measure('x', 'navigationStart'));
  out.timingMeasureOptions = err(() => performance.measure('x', { end: 'loadEventEnd' }));
  out.unknown = err(() => performance.measure('x', 'no-such-mark'));
  out.overspec = err(() => performance.measure('x', { start: 1, duration: 1, end: 2 }));
  out.clone = err(() => performance.mark('x', { detail: () => {} }));
  out.negative = err(() => performance.mark('x', { startTime: -1 }));
  out.types = PerformanceObserver.supportedEntryTypes;
  out.typesFrozen = Object.isFrozen(out.types);
  const calls = [];
  const po = new PerformanceObserver(function (list, obs, options) {
    calls.push({ names: list.getEntries().map((e) => e.name), self: this === po, options: { ...options } });
  });
  po.observe({ type: 'mark' });
  performance.mark('o1', { startTime: 2 });
  performance.mark('o2', { startTime: 1 });
  await until(() => calls.length > 0);
  // A mark from a later task gets its own callback, after anything left over from the first.
  performance.mark('o3', { startTime: 3 });
  await until(() => calls.some((c) => c.names.includes('o3')));
  po.disconnect();
  out.calls = calls;
  const res = [];
  const rpo = new PerformanceObserver((list) => res.push(...list.getEntries().map((e) => [e.entryType, new URL(e.name).pathname])));
  rpo.observe({ type: 'resource' });
  await (await fetch('/package.json?worker')).text();
  await until(() => res.length > 0);
  rpo.disconnect();
  out.resourceObserved = res;
  out.resourceByType = performance.getEntriesByType('resource').some((e) => e.name.endsWith('/package.json?worker'));
  const all = performance.getEntries();
  out.allSorted = all.every((e, i) => i === 0 || all[i - 1].startTime <= e.startTime);
  out.allTypes = [...new Set(all.map((e) => e.entryType))];
  out.json = m.toJSON();
  performance.clearMarks('w');
  out.afterClear = performance.getEntriesByName('w').length;
  return out;
}
`;

const CAPTURE = `
  self.PERFSHIM = { force: true };
  const nativeSeen = {
    PerformanceMark: self.PerformanceMark,
    PerformanceObserver: self.PerformanceObserver,
    supportedEntryTypes: PerformanceObserver.supportedEntryTypes.slice(),
  };
  performance.mark('native-worker-pre', { startTime: 3 });
`;

const routes = {
  '/timeline-worker-page.html': { body: '<!doctype html><title>worker host</title><p>worker host' },
  // Evaluated before the glue, so the config and native probes come first.
  '/timeline-worker-config.js': {
    type: 'text/javascript',
    body: `${CAPTURE}\nself.nativeSeen = nativeSeen;\n`,
  },
  '/timeline-module-worker.js': {
    type: 'text/javascript',
    body:
      `import '/timeline-worker-config.js';\nimport { installed } from '/glue/auto.js';\n${CHECKS}\n` +
      'runChecks(installed, self.nativeSeen).then((r) => postMessage(r), (e) => postMessage({ error: String(e && e.stack || e) }));\n',
  },
  '/timeline-classic-worker.js': {
    type: 'text/javascript',
    body:
      `${CAPTURE}\nimportScripts('/dist/perfshim.auto.js');\n${CHECKS}\n` +
      'runChecks({ installed: self.perfshim ? "classic" : "missing" }, nativeSeen).then((r) => postMessage(r), (e) => postMessage({ error: String(e && e.stack || e) }));\n',
  },
};

let server;
before(async () => {
  server = await serve({ routes });
});
after(async () => {
  if (server) await server.close();
});

async function runWorker(page, path, options) {
  return page.evaluate(
    ([p, o]) =>
      new Promise((resolve) => {
        const w = new Worker(p, o);
        const timer = setTimeout(() => resolve({ error: 'timeout' }), 60000);
        w.onmessage = (ev) => {
          clearTimeout(timer);
          resolve(ev.data);
          w.terminate();
        };
        w.onerror = (ev) => {
          clearTimeout(timer);
          resolve({ error: `worker error: ${ev.message}` });
        };
      }),
    [path, options],
  );
}

const TYPE = { ctor: 'TypeError', name: 'TypeError', dom: false, code: undefined };
const dom = (name, code) => ({ ctor: 'DOMException', name, dom: true, code });

function checkWorker(r, label) {
  assert.equal(r.error, undefined, `${label}: ${r.error}`);
  assert.equal(r.isWindow, false);
  assert.ok(r.replaced, `${label}: the worker globals are perfshim's`);
  assert.deepEqual(r.mark, ['w', 'mark', 5, 0, '{"k":[1]}', true]);
  assert.deepEqual(r.measure, [5, 4]);
  assert.ok(r.sameObject);
  assert.deepEqual(
    r.carried,
    [['mark', 3]],
    `${label}: the native mark made before install is carried over`,
  );
  assert.equal(
    r.timingMark,
    'no exception',
    'PerformanceTiming names are plain mark names in a worker',
  );
  assert.equal(r.timingMarkName, 1);
  assert.deepEqual(
    r.timingMeasure,
    TYPE,
    'measure with a PerformanceTiming name in a worker: TypeError',
  );
  assert.deepEqual(r.timingMeasureOptions, TYPE);
  assert.deepEqual(r.unknown, dom('SyntaxError', 12));
  assert.deepEqual(r.overspec, TYPE);
  assert.deepEqual(r.clone, dom('DataCloneError', 25));
  assert.deepEqual(r.negative, TYPE);
  assert.ok(r.typesFrozen);
  for (const t of r.nativeSeen.supportedEntryTypes)
    assert.ok(r.types.includes(t), `${label}: native type ${t}`);
  assert.ok(r.types.includes('mark') && r.types.includes('measure'));
  assert.deepEqual([...r.types].sort(), r.types);
  assert.deepEqual(
    r.calls.map((c) => c.names),
    [['o2', 'o1'], ['o3']],
    `${label}: one callback for the marks of one task`,
  );
  assert.ok(r.calls[0].self);
  assert.deepEqual(r.calls[0].options, { droppedEntriesCount: 0 });
  assert.deepEqual(
    r.resourceObserved,
    [['resource', '/package.json']],
    `${label}: a fetch in the worker is observed`,
  );
  assert.ok(r.resourceByType);
  assert.ok(r.allSorted);
  assert.ok(
    r.allTypes.includes('resource') &&
      r.allTypes.includes('mark') &&
      r.allTypes.includes('measure'),
    String(r.allTypes),
  );
  assert.equal(r.json.name, 'w');
  assert.equal(r.json.startTime, 5);
  assert.equal(r.afterClear, 0);
}

forEachEngine((engine) => {
  let browser;
  const results = {};
  before(async () => {
    browser = await launchEngine(engine);
    const page = await browser.newPage();
    await page.goto(`${server.url}/timeline-worker-page.html`);
    results.module = await runWorker(page, '/timeline-module-worker.js', { type: 'module' });
    if (classicBuilt) results.classic = await runWorker(page, '/timeline-classic-worker.js');
    results.errors = await page.errors();
  });
  after(async () => {
    if (browser) await browser.close();
  });

  test('module worker importing the glue: installed with force, and conforming', () => {
    const r = results.module;
    assert.equal(r.error, undefined, r.error);
    assert.ok(r.installed.installed.includes('timeline'), JSON.stringify(r.installed));
    checkWorker(r, 'module worker');
  });

  test('classic worker with importScripts(dist/perfshim.auto.js): installed and conforming', {
    skip: classicBuilt ? false : 'dist/perfshim.auto.js is not built yet (make dist)',
  }, () => {
    const r = results.classic;
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.installed.installed, 'classic');
    checkWorker(r, 'classic worker');
  });

  test('no page errors', () => {
    assert.deepEqual(results.errors, []);
  });
});
