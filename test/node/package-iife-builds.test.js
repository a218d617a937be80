// `import 'perfshim/auto'` in an app built as one classic script (IIFE, UMD) with default options
// (issue 23): Rollup 4 failed ("UMD and IIFE output formats are not supported for code-splitting
// builds") on the import() of Measure Memory's part; it now builds without that part (the script
// imports it from beside itself on the first call), and Vite, esbuild and webpack still build.
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
let app;
const INSTALLED = /supportedEntryTypes/; // the installer's code is in the script
const MEMORY_CORE = 'ps_memory_build'; // Measure Memory's core (its one export name)

before(() => {
  app = join(mkdtempSync(join(tmpdir(), 'perfshim-iife-')), 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(repo, join(app, 'node_modules/perfshim'));
  writeFileSync(join(app, 'main.js'), "import 'perfshim/auto';\nperformance.mark('ready');\n");
});

test('Rollup 4 builds IIFE and UMD scripts, without Measure Memory inside', async () => {
  const { rollup } = await import('rollup');
  const { nodeResolve } = await import('@rollup/plugin-node-resolve');
  for (const browser of [true, false]) {
    const b = await rollup({ input: join(app, 'main.js'), plugins: [nodeResolve({ browser })] });
    for (const format of ['iife', 'umd']) {
      const { output } = await b.generate({ format, name: 'app' });
      const what = `${format}, browser: ${browser}`;
      assert.equal(output.length, 1, what);
      assert.match(output[0].code, INSTALLED, what);
      assert.ok(!output[0].code.includes(MEMORY_CORE), `${what}: Measure Memory is eager`);
      const part = browser ? 'memory.browser.mjs' : 'memory.mjs';
      assert.ok(output[0].code.includes(`"./perfshim-"+"${part}"`), `${what}: no import of it`);
    }
  }
});

test('Vite builds a library as IIFE', async () => {
  const { build } = await import('vite');
  const r = await build({
    root: app,
    configFile: false,
    logLevel: 'silent',
    build: {
      write: false,
      lib: { entry: join(app, 'main.js'), name: 'app', formats: ['iife'] },
    },
  });
  const chunks = [r].flat()[0].output.filter((o) => o.type === 'chunk');
  assert.equal(chunks.length, 1);
  assert.match(chunks[0].code, INSTALLED);
});

test('esbuild builds an IIFE', async () => {
  const { build } = await import('esbuild');
  const r = await build({
    entryPoints: [join(app, 'main.js')],
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  assert.deepEqual(
    r.warnings.map((w) => w.text),
    [],
  );
  assert.match(r.outputFiles[0].text, INSTALLED);
});

test('webpack builds the app and keeps Measure Memory in a chunk of its own', async () => {
  const webpack = (await import('webpack')).default;
  const out = join(app, 'webpack-out');
  const stats = await new Promise((resolve, reject) =>
    webpack(
      { mode: 'production', context: app, entry: './main.js', output: { path: out } },
      (e, s) => (e ? reject(e) : resolve(s)),
    ),
  );
  assert.deepEqual(
    stats.toJson().errors.map((e) => e.message),
    [],
  );
  const main = readFileSync(join(out, 'main.js'), 'latin1');
  assert.match(main, INSTALLED);
  assert.ok(!main.includes(MEMORY_CORE), 'Measure Memory is eager');
  const parts = readdirSync(out).filter((f) => f !== 'main.js');
  assert.ok(
    parts.some((f) => readFileSync(join(out, f), 'latin1').includes(MEMORY_CORE)),
    String(parts),
  );
});
