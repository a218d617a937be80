// The probes' switch (glue/instrument/probes.js): instrumented code keeps the shadow stack only
// while a profiler of the instrumentation source runs, in every file, including one loaded while
// it runs; a frame already running when the switch goes on is not on the stack (its callees
// are, an async function again from its next resume), and one entered while on still pops
// after the switch went off.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../glue/loader.js';
import { createProfilerClass } from '../../glue/profiler.js';
import { instrument } from '../../glue/instrument/transform.js';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { getProbes, STACK_BASE } from '../../glue/instrument/probes.js';

const P = getProbes();
const load = (src, name) =>
  import(
    `data:text/javascript,${encodeURIComponent(instrument(src, { file: `${name}.js` }).code)}#${Math.random()}`
  );
/** The names on the shadow stack, outermost first. */
const names = () => {
  const out = [];
  for (let i = 0; i < P.S[0]; i++) out.push(P.frames[P.S[i + STACK_BASE]][0]);
  return out;
};
const SRC = `
export function outer(f) { return inner(f); }
export function inner(f) { return f(); }
export function spin(ms) { const end = performance.now() + ms; while (performance.now() < end); }
export function starts(Profiler, ms) {
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
  outer(() => spin(ms));
  return p.stop();
}
export async function resumes(Profiler, ms) {
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
  await null;
  outer(() => spin(ms));
  return p.stop();
}`;
/** Each sample's stack as names joined by '>'. */
const stacks = (t) =>
  t.samples.map((s) => {
    const out = [];
    for (let id = s.stackId; id !== undefined; id = t.stacks[id].parentId)
      out.unshift(t.frames[t.stacks[id].frameId].name || '(anonymous)');
    return out.join('>');
  });

// Node 18 has no process.getBuiltinModule: an ES module cannot start the shared sampler's worker
// there (as in profiler-instrument-source, which the Makefile leaves out on Node 18).
const noWorker = typeof process.getBuiltinModule !== 'function';
for (const mode of noWorker ? ['log'] : ['log', 'shared']) {
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
    const sync = stacks(await m.starts(Profiler, 60));
    const spun = sync.filter((s) => s.endsWith('spin'));
    assert.ok(spun.length >= 10, JSON.stringify(sync));
    for (const s of spun) assert.equal(s, 'outer>inner>(anonymous)>spin');
    const async = stacks(await m.resumes(Profiler, 60));
    const resumed = async.filter((s) => s.endsWith('spin'));
    assert.ok(resumed.length >= 10, JSON.stringify(async));
    for (const s of resumed) assert.equal(s, 'resumes>outer>inner>(anonymous)>spin');
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
