// The instrumented build's bytes against the plain build's (issue 25: <= 1.15x gzipped), held to
// a ceiling: marked (a library, every function but the tiny ones instrumented: 1.166x before
// they were left out, 1.154x since, with call-free returns popping first, 1.147x with probes.11's
// frame table kept as text, decoded by the profiler) and the Preact fixture app (the
// app's modules instrumented, the probes' runtime once), each bundled and minified by esbuild,
// gzip -9. Before probes.10 (a push, a pop and logging tests inline in every function, with
// locals a minifier names per function): 1.39x and 1.25x; bench/instrument-size.mjs has the
// other bundlers.
import test from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { esbuildPlugin } from '../../glue/instrument/index.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

async function gzipped(options, plugin) {
  const r = await build({
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    logLevel: 'silent',
    outdir: 'out',
    ...options,
    plugins: plugin ? [plugin] : [],
  });
  return r.outputFiles.reduce((n, f) => n + gzipSync(f.contents, { level: 9 }).length, 0);
}

test('marked instrumented: <= 1.15x the plain build gzipped', async () => {
  const options = { entryPoints: [join(repo, 'node_modules/marked/lib/marked.esm.js')] };
  const plain = await gzipped(options);
  const instrumented = await gzipped(options, esbuildPlugin({ include: /marked/ }));
  const ratio = instrumented / plain;
  assert.ok(ratio <= 1.15, `${ratio.toFixed(3)}x`);
});

test('the Preact app instrumented: <= 1.15x the plain build gzipped', async () => {
  const app = join(mkdtempSync(join(tmpdir(), 'perfshim-size-budget-')), 'app');
  cpSync(join(repo, 'test/node/fixtures/preact-app'), app, { recursive: true });
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(join(repo, 'node_modules/preact'), join(app, 'node_modules/preact'));
  const options = {
    entryPoints: [join(app, 'src/main.jsx')],
    jsxFactory: 'h',
    jsxFragment: 'Fragment',
  };
  const plain = await gzipped(options);
  const instrumented = await gzipped(options, esbuildPlugin({}));
  const ratio = instrumented / plain;
  assert.ok(ratio <= 1.15, `${ratio.toFixed(3)}x`);
});
