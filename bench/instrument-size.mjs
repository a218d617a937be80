// Instrumented bytes against the plain build (issue 25: the instrumented app <= 1.15x the plain
// app gzipped), on a framework app (test/node/fixtures/preact-app: Preact in JSX through Babel,
// built minified by Rollup + terser, Vite, esbuild and webpack 5; the app's own modules
// instrumented, then Preact too with `dependencies: ['preact']`) and on a library-heavy one
// (marked, bundled and minified by esbuild, the library instrumented). Every build is
// minified, as shipped; sizes raw and gzipped (level 9) of all the build's JS.
//   node bench/instrument-size.mjs [--baseline=DIR]   DIR: another revision, side by side
import { build as esbuild } from 'esbuild';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { jsxRules, rollupBabelOptions } from '../test/node/fixtures/preact-app-build.mjs';
import { minify } from 'terser';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name) =>
  (process.argv.find((a) => a.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const baseline = arg('baseline') ? resolve(arg('baseline')) : '';
const work = mkdtempSync(join(tmpdir(), 'perfshim-bench-size-'));
const app = join(work, 'app');
cpSync(join(ROOT, 'test/node/fixtures/preact-app'), app, { recursive: true });
mkdirSync(join(app, 'node_modules'));
symlinkSync(join(ROOT, 'node_modules/preact'), join(app, 'node_modules/preact'));

/** Raw and gzipped bytes of the .js/.mjs files under dir. */
function sizeOf(dir) {
  let raw = 0,
    gz = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.m?js$/.test(e.name)) {
        const b = readFileSync(p);
        raw += b.length;
        gz += gzipSync(b, { level: 9 }).length;
      }
    }
  };
  walk(dir);
  return { raw, gz };
}

const terser = {
  name: 'terser',
  async renderChunk(code) {
    return (await minify(code, { module: true })).code;
  },
};

// Each bundler builds the preact app with `plugin` (null: plain) into dir.
const builders = {
  'Rollup 4 + terser': async (plugin, dir) => {
    const { rollup } = await import('rollup');
    const { babel: babelPlugin } = await import('@rollup/plugin-babel');
    const { nodeResolve } = await import('@rollup/plugin-node-resolve');
    const bundle = await rollup({
      input: join(app, 'src/main.jsx'),
      plugins: [
        nodeResolve({ extensions: ['.js', '.jsx'] }),
        babelPlugin(rollupBabelOptions),
        ...(plugin ? [plugin.rollupPlugin(plugin.options)] : []),
        terser,
      ],
    });
    await bundle.write({ dir, format: 'es' });
  },
  Vite: async (plugin, dir) => {
    const { build } = await import('vite');
    const { babel: babelPlugin } = await import('@rollup/plugin-babel');
    await build({
      root: app,
      configFile: false,
      logLevel: 'silent',
      oxc: false,
      plugins: [
        babelPlugin(rollupBabelOptions),
        ...(plugin ? [plugin.vitePlugin(plugin.options)] : []),
      ],
      build: { outDir: dir, modulePreload: { polyfill: false } },
    });
  },
  'esbuild (minify)': async (plugin, dir) => {
    await esbuild({
      entryPoints: [join(app, 'src/main.jsx')],
      bundle: true,
      format: 'esm',
      minify: true,
      outdir: dir,
      logLevel: 'silent',
      jsxFactory: 'h',
      jsxFragment: 'Fragment',
      plugins: plugin ? [plugin.esbuildPlugin(plugin.options)] : [],
    });
  },
  'webpack 5 (production)': async (plugin, dir) => {
    const { default: webpack } = await import('webpack');
    await new Promise((ok, fail) =>
      webpack(
        {
          mode: 'production',
          context: app,
          entry: './src/main.jsx',
          output: { path: dir, filename: 'bundle.js' },
          resolve: { extensions: ['.js', '.jsx'] },
          module: { rules: jsxRules() },
          plugins: plugin ? [plugin.webpackPlugin(plugin.options)] : [],
        },
        (err, s) => (err || s.hasErrors() ? fail(err || s.toString()) : ok()),
      ),
    );
  },
};

const marked = async (plugin, dir) => {
  await esbuild({
    entryPoints: [join(ROOT, 'node_modules/marked/lib/marked.esm.js')],
    bundle: true,
    format: 'esm',
    minify: true,
    outdir: dir,
    logLevel: 'silent',
    plugins: plugin ? [plugin.esbuildPlugin(plugin.options)] : [],
  });
};

const revisions = [['this tree', ROOT], ...(baseline ? [['baseline', baseline]] : [])];
const rows = [];
let n = 0;
const measure = async (make, plugin) => {
  const dir = join(work, `out${n++}`);
  await make(plugin, dir);
  return sizeOf(dir);
};
for (const [label, make] of Object.entries(builders)) {
  const plain = await measure(make, null);
  const row = { app: `preact-app, ${label}`, plain, cells: [] };
  for (const [, root] of revisions) {
    const plugin = await import(pathToFileURL(join(root, 'glue/instrument/index.js')).href);
    row.cells.push([
      await measure(make, { ...plugin, options: {} }),
      await measure(make, { ...plugin, options: { dependencies: ['preact'] } }),
    ]);
  }
  rows.push(row);
}
{
  const plain = await measure(marked, null);
  const row = { app: 'marked, esbuild (minify)', plain, cells: [] };
  for (const [, root] of revisions) {
    const plugin = await import(pathToFileURL(join(root, 'glue/instrument/index.js')).href);
    row.cells.push([await measure(marked, { ...plugin, options: { include: /marked/ } })]);
  }
  rows.push(row);
}

const x = (a, b) => `${(a / b).toFixed(3)}x`;
const kb = (b) => (b / 1024).toFixed(1);
console.log(
  `\n### Instrumented bytes against the plain build (KB raw / gzip; ratio gzipped, raw; goal <= 1.15x gzipped)\n`,
);
const head = revisions.flatMap(([name]) => [
  `${name}: app instrumented`,
  `${name}: app + Preact instrumented`,
]);
console.log(`| app, bundler | plain | ${head.join(' | ')} |`);
console.log(`|---|---|${head.map(() => '---').join('|')}|`);
for (const r of rows) {
  const cells = r.cells.flatMap((c) =>
    [0, 1].map((i) =>
      c[i]
        ? `${kb(c[i].raw)} / ${kb(c[i].gz)}: **${x(c[i].gz, r.plain.gz)}**, ${x(c[i].raw, r.plain.raw)}`
        : '(the library instrumented: previous column)',
    ),
  );
  console.log(`| ${r.app} | ${kb(r.plain.raw)} / ${kb(r.plain.gz)} | ${cells.join(' | ')} |`);
}
rmSync(work, { recursive: true, force: true });
