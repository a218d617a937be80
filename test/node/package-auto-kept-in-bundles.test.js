// `import 'perfshim/auto'` in an app built by Rollup 4, Vite and esbuild (issue 23): the import is
// kept (package.json `sideEffects` names every auto entry) and the browser build (the "browser"
// export condition) references no `node:` module, so Vite warns of none.
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
let app;
// A string only the installer's code holds: the bundle kept the import when it is there.
const INSTALLED = /installClassic|supportedEntryTypes/;

before(() => {
  app = join(mkdtempSync(join(tmpdir(), 'perfshim-auto-')), 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(repo, join(app, 'node_modules/perfshim'));
  writeFileSync(join(app, 'main.js'), "import 'perfshim/auto';\nperformance.mark('ready');\n");
  writeFileSync(
    join(app, 'index.html'),
    '<!doctype html><script type="module" src="/main.js"></script>\n',
  );
});

test('Rollup 4 (node-resolve, browser and not) keeps the import', async () => {
  const { rollup } = await import('rollup');
  const { nodeResolve } = await import('@rollup/plugin-node-resolve');
  for (const browser of [false, true]) {
    const warnings = [];
    const b = await rollup({
      input: join(app, 'main.js'),
      plugins: [nodeResolve({ browser })],
      onwarn: (w) => warnings.push(w.message),
    });
    const { output } = await b.generate({ format: 'es' });
    assert.match(output[0].code, INSTALLED, `browser: ${browser}`);
    assert.deepEqual(warnings, []);
    if (browser)
      assert.ok(
        output.every((o) => !/import\(["']node:/.test(o.code || '')),
        'no node: import',
      );
  }
});

test('Vite keeps the import and warns of no node: module (the browser build)', async () => {
  const { build, createLogger } = await import('vite');
  const logger = createLogger('warn', { allowClearScreen: false });
  const warned = [];
  logger.warn = (m) => warned.push(m);
  logger.warnOnce = (m) => warned.push(m);
  const r = await build({
    root: app,
    configFile: false,
    customLogger: logger,
    build: { write: false, modulePreload: { polyfill: false } },
  });
  const chunks = [r].flat()[0].output.filter((o) => o.type === 'chunk');
  assert.match(chunks[0].code, INSTALLED);
  assert.deepEqual(
    warned.filter((m) => /node:|externalized/.test(m)),
    [],
  );
});

test('esbuild (platform browser) keeps the import without a warning', async () => {
  const { build } = await import('esbuild');
  const r = await build({
    entryPoints: [join(app, 'main.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  assert.deepEqual(
    r.warnings.map((w) => w.text),
    [],
  );
  assert.match(r.outputFiles[0].text, INSTALLED);
  assert.doesNotMatch(r.outputFiles[0].text, /import\(["']node:/);
});
