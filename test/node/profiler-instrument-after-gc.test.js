// The instrumentation source after a full garbage collection, on code built as production builds
// it: the esbuild plugin in an IIFE bundle, minified by terser (defaults), then a real gc() before
// the Profiler starts: every sample of the app's work has its stack (issue 23's P0: the switch's
// setter was held weakly and its only strong binding was dropped by the minifier: 0 stacks).
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext, runInThisContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { minify } from 'terser';
import { esbuildPlugin } from '../../glue/instrument/index.js';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { createProfilerClass } from '../../glue/profiler/profiler.js';
import { loadCore } from '../../glue/host/loader.js';
import { SAMPLERS } from './fixtures/instrument-switch.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

/** The fixture's `alternate` bundled (IIFE, through the plugin) and minified; returns the
 *  minified text. */
async function minifiedApp() {
  const work = fileURLToPath(new URL('./fixtures/instrument-work.mjs', import.meta.url));
  const out = await build({
    stdin: {
      contents: `import { alternate } from ${JSON.stringify(work)};\nglobalThis.__afterGcWork = alternate;`,
      resolveDir: join(work, '..'),
    },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
    plugins: [esbuildPlugin({ include: /instrument-work/ })],
  });
  const { code } = await minify(out.outputFiles[0].text);
  return code;
}

test('a minified IIFE bundle samples its stacks after full garbage collections', async () => {
  const code = await minifiedApp();
  assert.match(code, /\.reg\(/, 'the app was instrumented');
  runInThisContext(code);
  const alternate = globalThis.__afterGcWork;
  for (let i = 0; i < 3; i++) gc();
  await new Promise((r) => setTimeout(r, 10));
  gc();
  for (const mode of SAMPLERS) {
    const Profiler = createProfilerClass(loadCore(), { source: createInstrumentSource({ mode }) });
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    alternate(10, 5);
    const t = await p.stop();
    const work = t.samples.filter((s) => s.stackId !== undefined);
    assert.ok(t.samples.length >= 5, `${mode}: ${t.samples.length} samples`);
    assert.ok(
      work.length >= t.samples.length - 2,
      `${mode}: ${work.length} of ${t.samples.length} samples have a stack`,
    );
    const names = new Set(work.map((s) => t.frames[t.stacks[s.stackId].frameId].name));
    assert.ok(names.has('spin'), [...names].join(', '));
    gc();
  }
});
