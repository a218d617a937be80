// The profiling variant in browsers (issue 25): the Preact fixture app built by Vite with the
// plugin's `variant` (perfshim.auto.js as the sampled views' `before` script). Opted out
// (?perfshim-profile=0) the page loads the plain build only (no perfshim, nothing from
// profiling/) and the app works; opted in (?perfshim-profile=1) it loads perfshim and the
// instrumented build, the app works the same, and a Profiler's trace names the app's functions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsx from '@babel/plugin-transform-react-jsx';
import { serve, launchEngine, forEachEngine, withCollector, ROOT } from './harness.js';
import { vitePlugin } from '../../glue/instrument/index.js';

async function buildApp() {
  const { build } = await import('vite');
  const { babel: babelPlugin } = await import('@rollup/plugin-babel');
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-variant-browser-'));
  const app = join(dir, 'app');
  const outDir = join(dir, 'out');
  cpSync(join(ROOT, 'test/node/fixtures/preact-app'), app, { recursive: true });
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(join(ROOT, 'node_modules/preact'), join(app, 'node_modules/preact'));
  await build({
    root: app,
    base: '/v/',
    configFile: false,
    logLevel: 'silent',
    oxc: false,
    plugins: [
      babelPlugin({
        babelrc: false,
        configFile: false,
        plugins: [[jsx, { pragma: 'h', pragmaFrag: 'Fragment' }]],
        babelHelpers: 'bundled',
        extensions: ['.js', '.jsx'],
      }),
      vitePlugin({ variant: { sampleRate: 0, before: ['/dist/perfshim.auto.js'] } }),
    ],
    build: { outDir, modulePreload: { polyfill: false } },
  });
  const routes = {};
  for (const f of readdirSync(outDir, { recursive: true })) {
    if (!/\.(js|html)$/.test(f)) continue;
    const body = readFileSync(join(outDir, f), 'utf8');
    routes[`/v/${f}`] = f.endsWith('.html')
      ? { body: withCollector(body) }
      : { body, type: 'text/javascript' };
  }
  return routes;
}

// In the page: the app rendered, what was loaded, and (profiled) a trace around clicks that
// add rows (each new row computes fib).
const state = () => ({
  rows: document.querySelectorAll('li.row').length,
  note: document.querySelector('.perfshim-note')?.textContent,
  profiled: globalThis.perfshimProfiled,
  perfshim: typeof globalThis.perfshim,
  scripts: [...document.scripts].map((s) => new URL(s.src || location.href).pathname),
});

forEachEngine((engine) => {
  let srv, browser;
  before(async () => {
    srv = await serve({ routes: await buildApp() });
    browser = await launchEngine(engine);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('opted out: the plain build only, and the app works', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${srv.url}/v/index.html?perfshim-profile=0`);
      await page.waitFor(() => document.querySelector('.perfshim-note') !== null, undefined, {
        timeout: 30000,
      });
      const s = await page.evaluate(state);
      assert.deepEqual(await page.errors(), []);
      assert.equal(s.rows, 12);
      assert.equal(s.note, '12 rows');
      assert.equal(s.profiled, false);
      assert.equal(s.perfshim, 'undefined');
      assert.ok(
        !s.scripts.some((p) => p.includes('/profiling/') || p.includes('perfshim.auto')),
        s.scripts.join(),
      );
    } finally {
      await page.close();
    }
  });

  test('opted in: perfshim and the instrumented build; the app works and its functions are profiled', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${srv.url}/v/index.html?perfshim-profile=1`);
      await page.waitFor(() => document.querySelector('.perfshim-note') !== null, undefined, {
        timeout: 30000,
      });
      const s = await page.evaluate(state);
      assert.equal(s.rows, 12);
      assert.equal(s.note, '12 rows');
      assert.equal(s.profiled, true);
      assert.equal(s.perfshim, 'object');
      assert.ok(
        s.scripts.some((p) => p.startsWith('/v/profiling/')),
        s.scripts.join(),
      );
      const names = await page.evaluate(async () => {
        const p = new perfshim.Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
        const button = document.querySelector('button');
        const t0 = performance.now();
        while (performance.now() - t0 < 600) {
          button.click();
          await new Promise((r) => setTimeout(r, 0));
        }
        const t = await p.stop();
        const seen = new Set();
        for (const x of t.samples)
          for (let id = x.stackId; id !== undefined; id = t.stacks[id].parentId)
            seen.add(t.frames[t.stacks[id].frameId].name);
        return [...seen];
      });
      assert.deepEqual(await page.errors(), []);
      assert.ok(names.includes('Row') || names.includes('fib'), names.join());
      assert.ok(names.includes('fib'), names.join());
    } finally {
      await page.close();
    }
  });
});
