// The profiling variant (issue 25): with `variant`, Rollup, Vite, esbuild and webpack write the
// plain build (nothing instrumented, no probes), the same app instrumented under `profiling/`, and
// a loader next to each entry that picks one per view (the query parameter, the cookie, the sample
// rate); Vite's built index.html loads the loader; webpack's loaders name each entry's files
// (runtime chunk, content hashes) and are rewritten on every rebuild of a watch. The loader's choice is checked here with stubbed
// page globals; test/browser/instrument-variant-loader.test.js runs both variants in browsers.
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { jsxRules, rollupBabelOptions } from './fixtures/preact-app-build.mjs';
import {
  esbuildPlugin,
  rollupPlugin,
  vitePlugin,
  webpackPlugin,
  loaderText,
} from '../../glue/instrument/index.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/preact-app/', import.meta.url));
let app, out;
before(() => {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-variant-'));
  app = join(dir, 'app');
  out = join(dir, 'out');
  cpSync(fixture, app, { recursive: true });
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(join(repo, 'node_modules/preact'), join(app, 'node_modules/preact'));
});

const MARK = '/*perfshim:instrumented*/';
const jsOf = (dir) =>
  readdirSync(dir, { recursive: true })
    .filter((f) => /\.m?js$/.test(f) && !f.endsWith('.loader.js'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');

/** What the loader `text` loads (the scripts' src, type) for a page at `search` with `cookie`
 *  and Math.random() returning `random`. */
function pick(
  text,
  { search = '', cookie = '', random = 0.5, src = 'https://app.test/assets/main.loader.js' } = {},
) {
  const added = [];
  const document = {
    currentScript: { src },
    cookie,
    createElement: () => ({}),
    head: {
      appendChild(e) {
        added.push(e.type ? `${e.src} ${e.type}` : e.src);
        if (e.onload) e.onload();
      },
    },
  };
  const g = {
    document,
    location: { search, href: 'https://app.test/' },
    URL,
    URLSearchParams,
    Math: { random: () => random },
  };
  g.globalThis = g;
  runInNewContext(text, g);
  return { added, profiled: g.perfshimProfiled };
}

test('the loader: sample rate, then the cookie, then the query parameter decide; before scripts only when sampled', () => {
  const v = {
    sampleRate: 0.1,
    param: 'perfshim-profile',
    cookie: 'perfshim-profile',
    before: ['/perfshim.auto.js'],
  };
  const text = loaderText(v, './main.js', './profiling/main.js', true);
  assert.ok(Buffer.byteLength(text) < 700, `${Buffer.byteLength(text)} bytes`);
  const plain = ['https://app.test/assets/main.js module'];
  const sampled = [
    'https://app.test/perfshim.auto.js',
    'https://app.test/assets/profiling/main.js module',
  ];
  assert.deepEqual(pick(text, { random: 0.5 }), { added: plain, profiled: false });
  assert.deepEqual(pick(text, { random: 0.05 }), { added: sampled, profiled: true });
  assert.deepEqual(pick(text, { cookie: 'a=1; perfshim-profile=1' }).added, sampled);
  assert.deepEqual(
    pick(text, { search: '?perfshim-profile', random: 0.05, cookie: 'perfshim-profile=0' }).added,
    sampled,
  );
  assert.deepEqual(pick(text, { search: '?x=1&perfshim-profile=0', random: 0.05 }).added, plain);
  assert.deepEqual(pick(text, { cookie: 'perfshim-profile=0', random: 0.05 }).added, plain);
  const classic = loaderText({ ...v, before: [] }, './bundle.js', './profiling/bundle.js', false);
  assert.deepEqual(pick(classic, { random: 0 }).added, [
    'https://app.test/assets/profiling/bundle.js',
  ]);
  assert.throws(() => esbuildPlugin({ variant: { sampleRate: 2 } }), { name: 'RangeError' });
  assert.throws(() => rollupPlugin({ variant: { dir: '../x' } }), { name: 'TypeError' });
});

// The plain build has no probes, the variant has, and the entry's loader, served from `dir`,
// loads files that are there: the plain entry unsampled, the variant's under profiling/ sampled.
function checkVariant(dir, entry) {
  const plain = jsOf(dir)
    .split(jsOf(join(dir, 'profiling')))
    .join('');
  assert.ok(!plain.includes(MARK) && !plain.includes('createProbes'), 'the plain build is plain');
  assert.ok(jsOf(join(dir, 'profiling')).includes('.reg('), 'the variant is instrumented');
  const name = entry.replace(/\.m?js$/, '.loader.js');
  const loader = readFileSync(join(dir, name), 'utf8');
  const src = `https://app.test/${name}`;
  const file = (url) => join(dir, decodeURIComponent(new URL(url).pathname.slice(1)));
  const [unsampled] = pick(loader, { random: 0.99, src }).added;
  assert.equal(file(unsampled.split(' ')[0]), join(dir, entry));
  const [sampled] = pick(loader, { random: 0, src }).added.slice(-1);
  const at = file(sampled.split(' ')[0]);
  assert.ok(at.startsWith(join(dir, 'profiling')) && existsSync(at), at);
}

test('esbuild: the plain build, profiling/ and main.loader.js', async () => {
  const { build } = await import('esbuild');
  const outdir = join(out, 'esbuild');
  await build({
    entryPoints: [join(app, 'src/main.jsx')],
    bundle: true,
    format: 'esm',
    minify: true,
    outdir,
    logLevel: 'silent',
    jsxFactory: 'h',
    jsxFragment: 'Fragment',
    plugins: [esbuildPlugin({ variant: { sampleRate: 0.05 } })],
  });
  assert.deepEqual(readdirSync(outdir).sort(), ['main.js', 'main.loader.js', 'profiling']);
  assert.deepEqual(readdirSync(join(outdir, 'profiling')), ['main.js']);
  checkVariant(outdir, 'main.js');
});

test('Rollup: the plain build, profiling/ and a loader per entry', async () => {
  const { rollup } = await import('rollup');
  const { babel: babelPlugin } = await import('@rollup/plugin-babel');
  const { nodeResolve } = await import('@rollup/plugin-node-resolve');
  const dir = join(out, 'rollup');
  const bundle = await rollup({
    input: join(app, 'src/main.jsx'),
    plugins: [
      nodeResolve({ extensions: ['.js', '.jsx'] }),
      babelPlugin(rollupBabelOptions),
      rollupPlugin({ variant: true }),
    ],
  });
  await bundle.write({ dir, format: 'es' });
  await bundle.close();
  assert.deepEqual(readdirSync(dir).sort(), ['main.js', 'main.loader.js', 'profiling']);
  checkVariant(dir, 'main.js');
});

test("Vite: index.html loads the loader; the entry's variant under profiling/", async () => {
  const { build } = await import('vite');
  const { babel: babelPlugin } = await import('@rollup/plugin-babel');
  const outDir = join(out, 'vite');
  await build({
    root: app,
    configFile: false,
    logLevel: 'silent',
    oxc: false,
    plugins: [
      babelPlugin(rollupBabelOptions),
      vitePlugin({ variant: { sampleRate: 0.01, before: ['/perfshim.auto.js'] } }),
    ],
    build: { outDir, modulePreload: { polyfill: false } },
  });
  const html = readFileSync(join(outDir, 'index.html'), 'utf8');
  const m = /<script src="\/(assets\/[^"]+)\.loader\.js"><\/script>/.exec(html);
  assert.ok(m, html);
  assert.ok(!html.includes('type="module"'), html);
  checkVariant(outDir, `${m[1]}.js`);
  assert.ok(existsSync(join(outDir, 'profiling/index.html')));
});

// webpack: the options of a Preact app with two entries, content-hashed names and a runtime chunk.
const webpackOptions = (context, path, extra = {}) => ({
  mode: 'production',
  context,
  entry: { main: './src/main.jsx', work: './src/work.js' },
  output: { path, filename: '[name].[contenthash].js', clean: true },
  optimization: { runtimeChunk: 'single' },
  resolve: { extensions: ['.js', '.jsx'] },
  module: { rules: jsxRules() },
  plugins: [webpackPlugin({ variant: { sampleRate: 0.05 } })],
  ...extra,
});
const noErrors = (stats) => assert.deepEqual(stats.toJson({ all: false, errors: true }).errors, []);
// An entry's files as the plain build's stats list them.
const entryFiles = (stats, name) =>
  stats.toJson({ all: false, entrypoints: true }).entrypoints[name].assets.map((a) => a.name);

/** What an entry's loader in `dir` loads, unsampled and sampled, as [file in dir with its
 *  ?query, module?]. */
function loads(dir, entryFile) {
  const name = entryFile.replace(/\.js(\?.*)?$/, '.loader.js');
  const loader = readFileSync(join(dir, name), 'utf8');
  const src = `https://app.test/${name}`;
  const files = (added) =>
    added.map((a) => {
      const [url, type] = a.split(' ');
      const { pathname, search } = new URL(url);
      return [decodeURIComponent(pathname.slice(1)) + search, type === 'module'];
    });
  return {
    unsampled: files(pick(loader, { random: 0.99, src }).added),
    sampled: files(pick(loader, { random: 0, src }).added),
  };
}
const unhashed = (f) => f.replace(/\.[0-9a-f]{8,}\.js$/, '');

test('webpack: the plain build, profiling/ and a loader per entry naming its content-hashed files', async () => {
  const { default: webpack } = await import('webpack');
  const path = join(out, 'webpack');
  // (a third entry loads a chunk later: from the publicPath, which the variant moves under it)
  writeFileSync(join(app, 'src/lazy.js'), "export const later = () => import('./work.js');\n");
  const compiler = webpack(
    webpackOptions(app, path, {
      entry: { main: './src/main.jsx', work: './src/work.js', lazy: './src/lazy.js' },
      output: { path, filename: '[name].[contenthash].js', clean: true, publicPath: '/static/' },
      cache: { type: 'filesystem', cacheDirectory: join(out, 'webpack-cache') },
    }),
  );
  // Everything is written through the compiler's output file system (a dev server's is memory).
  const written = new Set();
  const fs = compiler.outputFileSystem;
  compiler.outputFileSystem = Object.assign(Object.create(fs), {
    writeFile(file, data, cb) {
      written.add(relative(path, file));
      fs.writeFile(file, data, cb);
    },
  });
  const stats = await new Promise((resolve, reject) =>
    compiler.run((err, s) => compiler.close(() => (err ? reject(err) : resolve(s)))),
  );
  noErrors(stats);
  assert.ok(existsSync(join(path, 'profiling')));
  assert.deepEqual(
    readdirSync(path, { recursive: true, withFileTypes: true })
      .filter((f) => f.isFile())
      .map((f) => relative(path, join(f.parentPath, f.name)))
      .sort(),
    [...written].sort(),
  );
  const plain = jsOf(path)
    .split(jsOf(join(path, 'profiling')))
    .join('');
  assert.ok(!plain.includes(MARK) && !plain.includes('createProbes'), 'the plain build is plain');
  assert.ok(jsOf(join(path, 'profiling')).includes('.reg('), 'the variant is instrumented');
  for (const entry of ['main', 'work']) {
    const files = entryFiles(stats, entry);
    assert.equal(files.length, 2, files.join()); // the runtime chunk, then the entry's own
    const { unsampled, sampled } = loads(path, files.at(-1));
    assert.deepEqual(
      unsampled,
      files.map((f) => [f, false]),
    );
    assert.deepEqual(
      sampled.map(([f, module]) => [unhashed(f), module]),
      files.map((f) => [`profiling/${unhashed(f)}`, false]),
    );
    for (const [f] of sampled) assert.ok(existsSync(join(path, f)), f);
    assert.notEqual(sampled.at(-1)[0], `profiling/${files.at(-1)}`, 'its own content hash');
  }
  const [runtime] = entryFiles(stats, 'lazy');
  assert.match(readFileSync(join(path, runtime), 'utf8'), /"\/static\/"/);
  const [profiledRuntime] = loads(path, entryFiles(stats, 'lazy').at(-1)).sampled[0];
  assert.match(readFileSync(join(path, profiledRuntime), 'utf8'), /"\/static\/profiling\/"/);
  // (each build its own filesystem cache, stored when the compiler closes)
  assert.deepEqual(readdirSync(join(out, 'webpack-cache')).sort(), [
    'default-production',
    'default-production-profiling',
  ]);
});

test("webpack: the variant's errors are the build's, and no loader is written", async () => {
  const { default: webpack } = await import('webpack');
  const path = join(out, 'webpack-error');
  const url = () => {
    throw new Error('no url here');
  };
  const stats = await new Promise((resolve, reject) =>
    webpack(
      webpackOptions(app, path, {
        entry: { work: './src/work.js' },
        plugins: [webpackPlugin({ variant: true, url })],
      }),
      (err, s) => (err ? reject(err) : resolve(s)),
    ),
  );
  const { errors } = stats.toJson({ all: false, errors: true });
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /no url here/);
  assert.ok(!readdirSync(path).some((f) => f.endsWith('.loader.js')), readdirSync(path).join());
});

test('webpack in watch mode, ES module output, hashes in a ?query: each rebuild rebuilds the variant and its loader', async () => {
  const { default: webpack } = await import('webpack');
  const context = join(out, 'webpack-watch-app');
  cpSync(app, context, { recursive: true, verbatimSymlinks: true });
  const path = join(out, 'webpack-watch');
  const builds = [];
  let next;
  const watching = webpack(
    webpackOptions(context, path, {
      entry: { main: './src/main.jsx' },
      output: { path, filename: '[name].js?[contenthash]', module: true, clean: true },
      experiments: { outputModule: true },
      watch: true,
    }),
    (err, s) => {
      builds.push(err || s);
      next?.();
    },
  );
  const mainOf = (stats) => entryFiles(stats, 'main').at(-1);
  // The first build that is an error or passes `ok` (a watch may also rebuild for nothing: the
  // copied files are newer than its start).
  const built = (ok) =>
    new Promise((resolve, reject) => {
      next = () => {
        const b = builds.find((x) => x instanceof Error || ok(x));
        if (b) (b instanceof Error ? reject : resolve)(b);
      };
      next();
    });
  try {
    const check = (stats) => {
      noErrors(stats);
      const main = mainOf(stats);
      assert.match(main, /^main\.js\?[0-9a-f]+$/);
      const { unsampled, sampled } = loads(path, main);
      // (an ES entry imports its runtime chunk itself)
      assert.deepEqual(unsampled, [[main, true]]);
      assert.equal(sampled.length, 1);
      assert.match(sampled[0][0], /^profiling\/main\.js\?[0-9a-f]+$/);
      assert.notEqual(sampled[0][0], `profiling/${main}`, 'its own content hash');
      assert.equal(sampled[0][1], true);
      return { main, variant: readFileSync(join(path, 'profiling/main.js'), 'utf8') };
    };
    const first = check(await built(() => true));
    assert.ok(!first.variant.includes('fib2'));
    writeFileSync(
      join(context, 'src/main.jsx'),
      `${readFileSync(join(context, 'src/main.jsx'), 'utf8')}\nglobalThis.fib2 = function fib2(n) {\n  return n * 2;\n};\n`,
    );
    const second = check(await built((s) => mainOf(s) !== first.main));
    assert.ok(second.variant.includes('fib2') && second.variant.includes('.reg('), 'rebuilt');
  } finally {
    await new Promise((resolve) => watching.close(resolve));
  }
});
