// The profiling variant (issue 25): with `variant`, Rollup, Vite and esbuild write the plain build
// (nothing instrumented, no probes), the same app instrumented under `profiling/`, and a loader
// next to each entry that picks one per view (the query parameter, the cookie, the sample rate);
// Vite's built index.html loads the loader. The loader's choice is checked here with stubbed
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
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import jsx from '@babel/plugin-transform-react-jsx';
import {
  esbuildPlugin,
  rollupPlugin,
  vitePlugin,
  loaderText,
} from '../../glue/instrument/index.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/preact-app/', import.meta.url));
const babelOptions = {
  babelrc: false,
  configFile: false,
  plugins: [[jsx, { pragma: 'h', pragmaFrag: 'Fragment' }]],
};
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
      babelPlugin({ ...babelOptions, babelHelpers: 'bundled', extensions: ['.js', '.jsx'] }),
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
      babelPlugin({ ...babelOptions, babelHelpers: 'bundled', extensions: ['.js', '.jsx'] }),
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
