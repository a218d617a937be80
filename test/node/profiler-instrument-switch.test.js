// The probes' switch (glue/instrument/probes.js): instrumented code keeps the shadow stack only
// while a profiler of the instrumentation source runs, in every file, including one loaded while
// it runs; a frame already running when the switch goes on is not on the stack (its callees
// are, an async function again from its next resume), and one entered while on still pops
// after the switch went off.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createCore, loadCore } from '../../glue/host/loader.js';
import { createProfilerClass } from '../../glue/profiler/profiler.js';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { getProbes, probeFrames, STACK_BASE } from '../../glue/instrument/probes.js';
import { SWITCH_SRC as SRC, SAMPLERS, spinSamples } from './fixtures/instrument-switch.mjs';

const P = getProbes();
const load = (src, name) =>
  import(
    `data:text/javascript,${encodeURIComponent(instrument(src, { file: `${name}.js` }).code)}#${Math.random()}`
  );
/** The names on the shadow stack, outermost first. */
const names = () => {
  const out = [];
  for (let i = 0; i < P.S[0]; i++) out.push(probeFrames(P)[P.S[i + STACK_BASE]][0]);
  return out;
};
for (const mode of SAMPLERS) {
  const Profiler = createProfilerClass(loadCore(), { source: createInstrumentSource({ mode }) });

  test(`${mode}: the stack is kept while a profiler runs, in every file, and not after`, async () => {
    const a = await load(SRC, 'a');
    assert.deepEqual(a.outer(names), [], 'no profiler: nothing on the stack');
    const p1 = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
    assert.deepEqual(a.outer(names), ['outer', 'inner']);
    const b = await load(SRC, 'b'); // loaded while the switch is on
    assert.deepEqual(
      b.outer(() => a.outer(names)),
      ['outer', 'inner', 'outer', 'inner'],
    );
    const p2 = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
    await p1.stop();
    assert.deepEqual(b.outer(names), ['outer', 'inner'], 'one profiler still runs');
    await p2.stop();
    assert.deepEqual(b.outer(names), []);
    assert.deepEqual(a.outer(names), []);
    assert.equal(P.S[0], 0);
  });

  test(`${mode}: a frame running at the start is not sampled, its callees are; async frames return at their resume`, async () => {
    const m = await load(SRC, 'c');
    // (the second session of each: in its first, the log sampler spreads a long call that no
    // stamped record ends over the records around it, the stamps' documented limit)
    await m.starts(Profiler, 20);
    await m.resumes(Profiler, 20);
    await spinSamples(assert, () => m.starts(Profiler, 60), 'outer>inner>(anonymous)>spin');
    const resumed = 'resumes>outer>inner>(anonymous)>spin';
    await spinSamples(assert, () => m.resumes(Profiler, 60), resumed);
    assert.equal(P.S[0], 0);
  });

  test(`${mode}: a frame entered while on pops after the switch went off`, async () => {
    const m = await load(SRC, 'd');
    let p = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
    let stopped;
    const seen = m.outer(() => {
      stopped = p.stop(); // the switch goes off inside inner
      return names();
    });
    await stopped;
    assert.deepEqual(seen, ['outer', 'inner']);
    assert.equal(P.S[0], 0, 'outer and inner popped after the stop');
    p = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
    assert.deepEqual(
      m.outer(names),
      ['outer', 'inner'],
      'the next session starts from an empty stack',
    );
    await p.stop();
  });
}

test('a core error while a profiler stops still ends its session: the switch goes off', async () => {
  // (ps_instrument_advance failing once, as a core that ran out of memory would)
  const m = await load(SRC, 'e');
  const core = createCore();
  let fail = false;
  const x = Object.create(core.x, {
    ps_instrument_advance: { get: () => (fail ? () => -2 : core.x.ps_instrument_advance) },
  });
  const failing = Object.create(core, { x: { value: x } });
  const Profiler = createProfilerClass(failing, {
    source: createInstrumentSource({ mode: 'log' }),
  });
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100 });
  assert.deepEqual(m.outer(names), ['outer', 'inner']);
  fail = true;
  await assert.rejects(p.stop());
  fail = false;
  assert.deepEqual(m.outer(names), [], 'the switch is off again');
  assert.equal(P.w(P.S, 0, 0, 0), 0, 'the log cursor is cleared');
});
