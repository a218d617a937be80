// The transform's `stack: 'always'` (glue/instrument/transform.js): a file instrumented so turns
// the realm's switch on for good when it first runs, so the stack is kept with no profiler and a
// function already running when a profiler starts is in its samples (the deviation of the
// default, 'profiling', does not apply); any other value is a TypeError. Its own file: the
// switch stays on for the rest of this process.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../glue/host/loader.js';
import { createProfilerClass } from '../../glue/profiler/profiler.js';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { getProbes } from '../../glue/instrument/probes.js';
import { SWITCH_SRC as SRC, SAMPLERS, spinSamples } from './fixtures/instrument-switch.mjs';

const load = (src, opts) =>
  import(`data:text/javascript,${encodeURIComponent(instrument(src, opts).code)}`);

test("stack: anything but 'profiling' or 'always' is a TypeError", () => {
  assert.throws(() => instrument(SRC, { stack: 'sometimes' }), {
    name: 'TypeError',
    message: /stack must be 'profiling' or 'always', not sometimes/,
  });
});

test("stack: 'always' keeps the stack from the file's first run, and the starting frame is sampled", async () => {
  const P = getProbes();
  const plainFile = await load(SRC, { file: 'default.js' });
  assert.equal(
    plainFile.outer(() => P.S[0]),
    0,
    'the default keeps no stack',
  );
  const m = await load(SRC, { file: 'always.js', stack: 'always' });
  assert.equal(
    m.outer(() => P.S[0]),
    2,
    'outer and inner on the stack, no profiler running',
  );
  assert.equal(
    plainFile.outer(() => P.S[0]),
    2,
    'the switch is the realm’s: the default file keeps it too now',
  );
  for (const mode of SAMPLERS) {
    const Profiler = createProfilerClass(loadCore(), { source: createInstrumentSource({ mode }) });
    await m.starts(Profiler, 20); // (the log sampler's first session spreads a long call)
    const spin = 'starts>outer>inner>(anonymous)>spin';
    await spinSamples(assert, () => m.starts(Profiler, 60), spin).catch((e) => {
      e.message = `${mode}: ${e.message}`;
      throw e;
    });
  }
  assert.equal(P.S[0], 0);
});
