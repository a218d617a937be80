// The profiling variant in browsers (issue 25): the Preact fixture app built by Vite and by webpack
// (content-hashed names, a runtime chunk: the loader loads two files) with the plugin's `variant`
// (perfshim.auto.js as the sampled views' `before` script). Opted out
// (?perfshim-profile=0) the page loads the plain build only (no perfshim, nothing from
// profiling/) and the app works; opted in (?perfshim-profile=1) it loads perfshim and the
// instrumented build, the app works the same, and a Profiler's trace names the app's functions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsxRules, rollupBabelOptions } from '../node/fixtures/preact-app-build.mjs';
import { serve, launchEngine, forEachEngine, withCollector, ROOT } from './harness.js';
import { vitePlugin, webpackPlugin } from '../../glue/instrument/index.js';

const variant = { sampleRate: 0, before: ['/dist/perfshim.auto.js'] };

async function buildVite(app, outDir) {
  const { build } = await import('vite');
  const { babel: babelPlugin } = await import('@rollup/plugin-babel');
  await build({
    root: app,
    base: '/v/',
    configFile: false,
    logLevel: 'silent',
    oxc: false,
    plugins: [babelPlugin(rollupBabelOptions), vitePlugin({ variant })],
    build: { outDir, modulePreload: { polyfill: false } },
  });
}

// webpack writes no page: index.html loads the entry's loader where it would load the entry.
async function buildWebpack(app, path) {
  const { default: webpack } = await import('webpack');
  const stats = await new Promise((resolve, reject) =>
    webpack(
      {
        mode: 'production',
        context: app,
        entry: { main: './src/main.jsx' },
        output: { path, filename: '[name].[contenthash].js' },
        optimization: { runtimeChunk: 'single' },
        resolve: { extensions: ['.js', '.jsx'] },
        module: { rules: jsxRules() },
        plugins: [webpackPlugin({ variant })],
      },
      (err, s) => (err ? reject(err) : resolve(s)),
    ),
  );
  const { errors, entrypoints } = stats.toJson({ all: false, errors: true, entrypoints: true });
  assert.deepEqual(errors, []);
  const loader = entrypoints.main.assets.at(-1).name.replace(/\.js$/, '.loader.js');
  writeFileSync(
    join(path, 'index.html'),
    `<!doctype html>\n<html>\n  <body>\n    <div id="app"></div>\n    <script src="/w/${loader}"></script>\n  </body>\n</html>\n`,
  );
}

async function buildApp() {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-variant-browser-'));
  const app = join(dir, 'app');
  cpSync(join(ROOT, 'test/node/fixtures/preact-app'), app, { recursive: true });
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(join(ROOT, 'node_modules/preact'), join(app, 'node_modules/preact'));
  await buildVite(app, join(dir, 'v'));
  await buildWebpack(app, join(dir, 'w'));
  const routes = {};
  for (const base of ['v', 'w'])
    for (const f of readdirSync(join(dir, base), { recursive: true })) {
      if (!/\.(js|html)$/.test(f)) continue;
      const body = readFileSync(join(dir, base, f), 'utf8');
      routes[`/${base}/${f}`] = f.endsWith('.html')
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

  for (const [bundler, base] of [
    ['Vite', '/v/'],
    ['webpack', '/w/'],
  ]) {
    test(`${bundler}, opted out: the plain build only, and the app works`, async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${srv.url}${base}index.html?perfshim-profile=0`);
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

    test(`${bundler}, opted in: perfshim and the instrumented build; the app works and its functions are profiled`, async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${srv.url}${base}index.html?perfshim-profile=1`);
        await page.waitFor(() => document.querySelector('.perfshim-note') !== null, undefined, {
          timeout: 30000,
        });
        const s = await page.evaluate(state);
        assert.equal(s.rows, 12);
        assert.equal(s.note, '12 rows');
        assert.equal(s.profiled, true);
        assert.equal(s.perfshim, 'object');
        assert.ok(
          s.scripts.some((p) => p.startsWith(`${base}profiling/`)),
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
  }
});
