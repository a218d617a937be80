// Real builds (issue 23): a Preact app in JSX, compiled by Babel and then instrumented by
// perfshim's plugin under Rollup 4 and 3 (Preact instrumented too: Rollup 3 once failed on
// instrumented libraries with "Undefined label __psx"), Vite, esbuild and webpack 5 (each app
// built once per bundler): every frame is registered at its ORIGINAL position in the .jsx source (the earlier
// transform's map chained in), and the bundle's own source map still leads there.
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runInThisContext } from 'node:vm';
import * as babel from '@babel/core';
import { babelOptions, jsxRules, rollupBabelOptions } from './fixtures/preact-app-build.mjs';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import {
  esbuildPlugin,
  rollupPlugin,
  vitePlugin,
  webpackPlugin,
} from '../../glue/instrument/index.js';
import { getProbes, probeFrames } from '../../glue/instrument/probes.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/preact-app/', import.meta.url));
let app, out;

before(() => {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-real-builds-'));
  app = join(dir, 'app');
  out = join(dir, 'out');
  cpSync(fixture, app, { recursive: true });
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(join(repo, 'node_modules/preact'), join(app, 'node_modules/preact'));
});

const url = (path) => relative(app, path).split('\\').join('/');
// Every function, the tiny ones too (`(c) => c + 1`), so that every position of the fixture is
// checked through each bundler's chain (tiny functions: instrument-tiny-functions.test.js).
const everyFunction = true;

// Where each function of a source starts in V8's terms (the `(` of its parameters), found by
// Babel's parser in the original text: "line:column", 1-based.
// Babel prints `(c) => …` as `c => …`: there is no `(` left, and that frame is at `c`.
function functionsOf(file, babelChain = true) {
  const code = readFileSync(join(app, file), 'utf8');
  const ast = babel.parseSync(code, { ...babelOptions, filename: file });
  const at = [];
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    if (/Function|Method/.test(node.type) && node.body) {
      const arrow = node.type === 'ArrowFunctionExpression';
      const i = code.indexOf('(', arrow ? node.start : ((node.id || node.key)?.end ?? node.start));
      const one = node.params.length === 1 && node.params[0].type === 'Identifier';
      const from = arrow && babelChain && one ? node.params[0].start : i;
      const before = code.slice(0, from).split('\n');
      at.push(`${before.length}:${before.at(-1).length + 1}`);
    }
    for (const v of Object.values(node)) for (const c of [v].flat()) visit(c);
  };
  visit(ast.program);
  return at.sort();
}

// Runs a bundle in this realm and returns the frames it registered, by resource.
async function framesOf(run) {
  const P = getProbes();
  const from = probeFrames(P).length;
  await run();
  const by = {};
  for (const [name, res, line, column] of probeFrames(P).slice(from))
    (by[res] ||= []).push({ name, at: `${line}:${column}` });
  return by;
}

function checkFrames(by, prefix = '', babelChain = true) {
  const app = by[`${prefix}src/App.jsx`];
  assert.ok(app, `App.jsx frames under ${prefix}src/App.jsx: ${Object.keys(by)}`);
  assert.deepEqual(app.map((f) => f.at).sort(), functionsOf('src/App.jsx', babelChain));
  assert.deepEqual(
    by[`${prefix}src/main.jsx`].map((f) => f.at).sort(),
    functionsOf('src/main.jsx', babelChain),
  );
  assert.deepEqual(
    by[`${prefix}src/work.js`].map((f) => f.at).sort(),
    functionsOf('src/work.js', babelChain),
  );
  const names = app.map((f) => f.name);
  for (const n of ['Row', 'App', 'more', 'footerText', 'Footer', 'render', 'later'])
    assert.ok(names.includes(n), `${n} in ${names}`);
}

// The bundle's map leads a string of the JSX back to where it is in App.jsx.
function checkMap(code, map) {
  const src = readFileSync(join(app, 'src/App.jsx'), 'utf8');
  const i = src.indexOf('"perfshim-note"');
  const want = {
    line: src.slice(0, i).split('\n').length,
    column: i - src.lastIndexOf('\n', i) - 1,
  };
  const j = code.indexOf('perfshim-note') - 1;
  const back = originalPositionFor(new TraceMap(map), {
    line: code.slice(0, j).split('\n').length,
    column: j - code.lastIndexOf('\n', j) - 1,
  });
  assert.match(back.source, /src\/App\.jsx$/);
  assert.deepEqual({ line: back.line, column: back.column }, want);
}

for (const [name, pkg] of [
  ['Rollup 4', 'rollup'],
  ['Rollup 3', 'rollup3'],
]) {
  test(`${name} + @rollup/plugin-babel (JSX), then the plugin (Preact instrumented too)`, async () => {
    const { rollup, VERSION } = await import(pkg);
    assert.equal(VERSION.split('.')[0], name.slice(-1));
    const { babel: babelPlugin } = await import('@rollup/plugin-babel');
    const { nodeResolve } = await import('@rollup/plugin-node-resolve');
    const bundle = await rollup({
      input: join(app, 'src/main.jsx'),
      plugins: [
        nodeResolve({ extensions: ['.js', '.jsx'] }),
        babelPlugin(rollupBabelOptions),
        rollupPlugin({ url, dependencies: ['preact'], everyFunction }),
      ],
    });
    const file = join(out, `${pkg}.mjs`);
    const { output } = await bundle.write({ file, format: 'es', sourcemap: true });
    const by = await framesOf(() => import(pathToFileURL(file).href));
    checkFrames(by);
    assert.ok(
      Object.keys(by).some((r) => r.includes('node_modules/preact/')),
      Object.keys(by).join(),
    );
    checkMap(output[0].code, output[0].map);
  });
}

test('Vite + @rollup/plugin-babel (JSX), the plugin with its default url (the served URL)', async () => {
  const { build } = await import('vite');
  const { babel: babelPlugin } = await import('@rollup/plugin-babel');
  const outDir = join(out, 'vite');
  const result = await build({
    root: app,
    configFile: false,
    logLevel: 'silent',
    oxc: false,
    plugins: [babelPlugin(rollupBabelOptions), vitePlugin({ everyFunction })],
    build: { outDir, sourcemap: true, modulePreload: { polyfill: false } },
  });
  const chunk = [result].flat()[0].output.find((o) => o.type === 'chunk');
  const file = join(outDir, chunk.fileName);
  checkFrames(await framesOf(() => import(pathToFileURL(file).href)), '/');
  checkMap(chunk.code, chunk.map);
});

const babelEsbuild = {
  name: 'babel',
  setup(b) {
    b.onLoad({ filter: /src\/.*\.jsx?$/ }, async (a) => ({
      contents: (
        await babel.transformAsync(readFileSync(a.path, 'utf8'), {
          ...babelOptions,
          filename: a.path,
          sourceMaps: 'inline',
        })
      ).code,
      loader: 'js',
    }));
  },
};

for (const [how, plugin, extra] of [
  ['a Babel plugin given to the plugin', { plugins: [babelEsbuild] }, {}],
  ["esbuild's own JSX loader", {}, { jsxFactory: 'h', jsxFragment: 'Fragment' }],
]) {
  test(`esbuild + ${how}`, async () => {
    const { build } = await import('esbuild');
    const file = join(out, `esbuild-${extra.jsxFactory ? 'jsx' : 'babel'}.mjs`);
    const r = await build({
      entryPoints: [join(app, 'src/main.jsx')],
      bundle: true,
      format: 'esm',
      outfile: file,
      sourcemap: 'external',
      minify: true,
      write: true,
      logLevel: 'silent',
      metafile: true,
      ...extra,
      plugins: [esbuildPlugin({ url, everyFunction, ...plugin })],
    });
    assert.equal(r.errors.length, 0);
    checkFrames(await framesOf(() => import(pathToFileURL(file).href)), '', !extra.jsxFactory);
    checkMap(readFileSync(file, 'utf8'), readFileSync(`${file}.map`, 'utf8'));
  });
}

test('webpack 5 + babel-loader (JSX), then the plugin (a post loader)', async () => {
  const { default: webpack } = await import('webpack');
  const path = join(out, 'webpack');
  const stats = await new Promise((resolve, reject) =>
    webpack(
      {
        mode: 'production',
        context: app,
        entry: './src/main.jsx',
        devtool: 'source-map',
        output: { path, filename: 'bundle.js' },
        resolve: { extensions: ['.js', '.jsx'] },
        module: { rules: jsxRules() },
        plugins: [webpackPlugin({ everyFunction })],
      },
      (err, s) => (err ? reject(err) : resolve(s)),
    ),
  );
  assert.deepEqual(stats.toJson({ all: false, errors: true, warnings: true }).errors, []);
  const code = readFileSync(join(path, 'bundle.js'), 'utf8');
  checkFrames(await framesOf(() => runInThisContext(code, { filename: 'bundle.js' })));
  checkMap(code, readFileSync(join(path, 'bundle.js.map'), 'utf8'));
  assert.deepEqual(readdirSync(path).sort(), ['bundle.js', 'bundle.js.map']);
});
