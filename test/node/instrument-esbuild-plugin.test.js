// The bundler plugin (unplugin) in a real esbuild build: every module of the app is
// instrumented, the bundle runs, its frames name the app's functions at their positions in the
// source files, and esbuild's source map still points into those files.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { esbuildPlugin } from '../../glue/instrument/index.js';
import { getProbes, probeFrames } from '../../glue/instrument/probes.js';

const app = fileURLToPath(new URL('./fixtures/instrument-app/', import.meta.url));

test('esbuild + the plugin: an instrumented bundle that runs and maps back to its sources', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-esbuild-'));
  const outfile = join(dir, 'bundle.mjs');
  await build({
    entryPoints: [join(app, 'main.js')],
    bundle: true,
    format: 'esm',
    outfile,
    sourcemap: true,
    logLevel: 'silent',
    plugins: [esbuildPlugin({ url: (id) => `app/${id.slice(app.length)}` })],
  });
  const code = readFileSync(outfile, 'utf8');
  assert.equal(
    code.split('.reg(').length - 1,
    2,
    'both modules instrumented (one frame table each)',
  );
  const P = getProbes();
  const before = probeFrames(P).length;
  const m = await import(pathToFileURL(outfile).href);
  assert.deepEqual(m.main(), [6, 2]);
  assert.equal(P.S[0], 0);
  const frames = probeFrames(P)
    .slice(before)
    .map(([name, url, line, column]) => `${name}@${url}:${line}:${column}`)
    .sort();
  assert.deepEqual(frames, [
    // Where V8 places a function: the ( of its parameter list.
    'heavy@app/work.js:1:22',
    'light@app/work.js:2:22',
    'main@app/main.js:2:21',
  ]);
  // esbuild composed the plugin's map with its own: `light(n)` of `return light(n) * 2` (now
  // `return __psr(light(n) * 2, __pst)`) maps into work.js.
  const map = new TraceMap(readFileSync(`${outfile}.map`, 'utf8'));
  const lines = code.split('\n');
  const at = lines.findIndex((l) => /__psr\d*\(light\(n\) \* 2/.test(l));
  const back = originalPositionFor(map, {
    line: at + 1,
    column: lines[at].indexOf('light(n)'),
  });
  assert.match(back.source, /instrument-app\/work\.js$/);
  assert.deepEqual([back.line, back.column], [1, 34]);
});

test('the plugin leaves node_modules and non-JS files alone unless included', async () => {
  const { unpluginFactory } = await import('../../glue/instrument/plugin.js');
  const p = unpluginFactory();
  assert.equal(p.transformInclude('/a/src/x.js'), true);
  assert.equal(p.transformInclude('/a/node_modules/lib/x.js'), false);
  assert.equal(p.transformInclude('/a/src/x.css'), false);
  const q = unpluginFactory({ include: /node_modules\/marked/ });
  assert.equal(q.transformInclude('/a/node_modules/marked/lib/marked.esm.js'), true);
});

test("esbuild + the plugin's stack option: 'always' reaches every module's header", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-esbuild-'));
  const bundle = async (options) => {
    const outfile = join(dir, `${options.stack || 'default'}.mjs`);
    await build({
      entryPoints: [join(app, 'main.js')],
      bundle: true,
      format: 'esm',
      outfile,
      logLevel: 'silent',
      plugins: [esbuildPlugin(options)],
    });
    return readFileSync(outfile, 'utf8');
  };
  // (esbuild renames the second module's `__ps`: `__ps2`)
  const uses = (code) => (code.match(/__ps\d*\.use\(1\)/g) || []).length;
  assert.equal(uses(await bundle({})), 0);
  assert.equal(uses(await bundle({ stack: 'always' })), 2);
  await assert.rejects(bundle({ stack: 'sometimes' }), /stack must be 'profiling' or 'always'/);
});
