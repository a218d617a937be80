// The probes' runtime once per bundle, not once per module (issue 25): the plugins make every
// instrumented module import it (the transform's `probes` option), so a bundle of several
// modules carries one copy; `probes: 'inline'` and classic scripts keep the header's fallback;
// and `composeMap: false` registers frames through the input map but returns the map relative to
// the input (what Rollup and Vite compose themselves: the plugin transforms once).
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import MagicString from 'magic-string';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { instrument, PROBES_TEXT } from './fixtures/instrument-every-function.mjs';
import { esbuildPlugin, rollupPlugin } from '../../glue/instrument/index.js';
import { getProbes, probeFrames } from '../../glue/instrument/probes.js';

const app = fileURLToPath(new URL('./fixtures/instrument-app/', import.meta.url));
const copies = (code) => code.split('function createProbes(').length - 1;

test('probes: a module specifier: the module imports getProbes, no inline copy; a script keeps it', () => {
  const mod = instrument('export function f() { return 1; }', { probes: '/x/probes.js' });
  assert.match(
    mod.code,
    /^\/\*perfshim:instrumented\*\/import\{getProbes as __psg\}from"\/x\/probes\.js";/,
  );
  assert.ok(!mod.code.includes(PROBES_TEXT));
  const script = instrument('function f() { return 1; }', { probes: '/x/probes.js' });
  assert.ok(script.code.includes(PROBES_TEXT));
  assert.throws(() => instrument('function f() {}', { probes: 1 }), { name: 'TypeError' });
});

for (const [name, probes, want] of [
  ['the runtime once (the default)', undefined, 1],
  ["probes: 'inline': a copy per module", 'inline', 2],
]) {
  test(`esbuild bundle of two modules: ${name}`, async () => {
    const outfile = join(mkdtempSync(join(tmpdir(), 'perfshim-runtime-')), 'bundle.mjs');
    await build({
      entryPoints: [join(app, 'main.js')],
      bundle: true,
      format: 'esm',
      outfile,
      logLevel: 'silent',
      plugins: [esbuildPlugin({ include: /instrument-app/, probes })],
    });
    const code = readFileSync(outfile, 'utf8');
    assert.equal(copies(code), want);
    const P = getProbes();
    const from = probeFrames(P).length;
    const m = await import(pathToFileURL(outfile).href);
    assert.deepEqual(m.main(), [6, 2]);
    assert.deepEqual(
      probeFrames(P)
        .slice(from)
        .map((f) => f[0])
        .sort(),
      ['heavy', 'light', 'main'],
    );
  });
}

test('Rollup bundle of two modules: the runtime once, not instrumented itself', async () => {
  const { rollup } = await import('rollup');
  const bundle = await rollup({
    input: join(app, 'main.js'),
    plugins: [rollupPlugin({ include: /instrument-app/ })],
  });
  const { output } = await bundle.generate({ format: 'es' });
  assert.equal(copies(output[0].code), 1);
  assert.equal(output[0].code.match(/\.reg\(/g).length, 2); // two modules' frame tables
});

test('composeMap: false: frames through the input map, the map relative to the input', () => {
  const original = 'export function add(a, b) {\n  return a + b;\n}\n';
  const s = new MagicString(original);
  s.prepend('// compiled\n');
  const code = s.toString();
  const inputMap = s.generateMap({ source: 'src/add.js', hires: true });
  const out = instrument(code, { file: 'add.js', inputMap, composeMap: false });
  assert.deepEqual(
    out.frames.map((f) => [f.name, f.url, f.line, f.column]),
    [['add', 'src/add.js', 1, 20]],
  );
  assert.deepEqual(out.map.sources, ['add.js']);
  const j = out.code.indexOf('a + b');
  const back = originalPositionFor(new TraceMap(out.map), {
    line: out.code.slice(0, j).split('\n').length,
    column: j - out.code.lastIndexOf('\n', j) - 1,
  });
  assert.deepEqual([back.line, back.column], [3, 9]);
  const composed = instrument(code, { file: 'add.js', inputMap });
  assert.deepEqual(composed.map.sources, ['src/add.js']);
});
