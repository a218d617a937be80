// The bundler plugin's choices in a real Rollup 4 build (issue 23): virtual `\0` modules are
// never instrumented, a plugin placed before the one that compiles JSX says so (not a bare
// SyntaxError blamed on another plugin), and `dependencies` instruments chosen node_modules
// packages (Preact: its render loop gets frames), with the size that costs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { rollup } from 'rollup';
import { babel } from '@rollup/plugin-babel';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import jsx from '@babel/plugin-transform-react-jsx';
import { rollupPlugin } from '../../glue/instrument/index.js';

const app = fileURLToPath(new URL('./fixtures/preact-app/', import.meta.url));
const babelPlugin = () =>
  babel({
    babelrc: false,
    configFile: false,
    babelHelpers: 'bundled',
    extensions: ['.js', '.jsx'],
    plugins: [[jsx, { pragma: 'h', pragmaFrag: 'Fragment' }]],
  });
const resolve = () => nodeResolve({ extensions: ['.js', '.jsx'] });
const frameTables = (code) =>
  [...code.matchAll(/\.reg\(\d+,(\[[^\]]*\])/g)].map((m) => JSON.parse(m[1]));

test('a virtual \\0 module is left alone; the files are instrumented', async () => {
  const virtual = {
    name: 'virtual',
    resolveId: (id) => (id === 'virtual:helpers.js' ? '\0virtual:helpers.js' : null),
    load: (id) => (id === '\0virtual:helpers.js' ? 'export const twice = (x) => x * 2;' : null),
  };
  const b = await rollup({
    input: 'entry.js',
    plugins: [
      {
        name: 'entry',
        resolveId: (id) => (id === 'entry.js' ? join(app, 'src/entry.js') : null),
        load: (id) =>
          id === join(app, 'src/entry.js')
            ? "import { twice } from 'virtual:helpers.js';\nexport function main(n) { return twice(n); }\n"
            : null,
      },
      virtual,
      rollupPlugin(),
    ],
  });
  const { output } = await b.generate({ format: 'es' });
  const urls = frameTables(output[0].code).flat();
  assert.equal(urls.length, 1);
  assert.doesNotMatch(urls[0], /\0/);
  assert.match(urls[0], /src\/entry\.js$/);
});

test('the plugin before Babel: an error that names the plugin and where it goes', async () => {
  await assert.rejects(
    rollup({
      input: join(app, 'src/main.jsx'),
      plugins: [resolve(), rollupPlugin(), babelPlugin()],
    }),
    (e) => {
      assert.equal(e.plugin, 'perfshim-instrument');
      assert.match(e.message, /main\.jsx/);
      assert.match(e.message, /must run after the plugins that compile JSX, TypeScript/);
      return true;
    },
  );
});

test("dependencies: ['preact'] instruments Preact's files too", async (t) => {
  const sizes = {};
  for (const deps of [[], ['preact']]) {
    const b = await rollup({
      input: join(app, 'src/main.jsx'),
      plugins: [resolve(), babelPlugin(), rollupPlugin({ dependencies: deps })],
    });
    const { output } = await b.generate({ format: 'es' });
    const urls = frameTables(output[0].code).flat();
    const preact = urls.filter((u) => u.includes('node_modules/preact/'));
    if (deps.length) assert.ok(preact.length >= 2, `preact and preact/hooks: ${urls}`);
    else assert.deepEqual(preact, []);
    sizes[deps.length ? 'with preact' : 'app only'] = output[0].code.length;
  }
  t.diagnostic(`bundle bytes: ${JSON.stringify(sizes)}`);
  assert.ok(sizes['with preact'] > sizes['app only']);
});
