// The Profiler's instrumentation source, both samplers (log in the core's memory; shared stack +
// sampler worker): traces name the instrumented functions at their source positions, attribute
// time by the stack active at each tick (idle ticks have no stack), and keep the spec's rules
// (sampleInterval rounding, maxBufferSize + samplebufferfull, concurrent profilers, stop() twice).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore } from '../../glue/host/loader.js';
import { createProfilerClass } from '../../glue/profiler/profiler.js';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { getProbes, STACK_BASE } from '../../glue/instrument/probes.js';
import { assertTraceInvariants } from './profiler-helpers.mjs';
import { createExporters } from '../../glue/export/export.js';

const URL_ = 'https://example.test/work.js';
const work = await import(
  `data:text/javascript,${encodeURIComponent(
    instrument(readFileSync(new URL('./fixtures/instrument-work.mjs', import.meta.url), 'utf8'), {
      file: 'work.js',
      url: URL_,
    }).code,
  )}`
);

/** Samples per function: a sample counts for every function on its stack. */
function counts(t) {
  const out = {};
  for (const s of t.samples) {
    const seen = new Set();
    for (let id = s.stackId; id !== undefined; id = t.stacks[id].parentId)
      seen.add(t.frames[t.stacks[id].frameId].name);
    for (const n of seen) out[n] = (out[n] || 0) + 1;
    if (s.stackId === undefined) out['(idle)'] = (out['(idle)'] || 0) + 1;
  }
  return out;
}

for (const mode of ['log', 'shared']) {
  const Profiler = createProfilerClass(loadCore(), { source: createInstrumentSource({ mode }) });

  test(`${mode}: the trace names the instrumented functions at their positions, with callers`, async () => {
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
    work.alternate(10, 5);
    const t = await p.stop();
    assertTraceInvariants(t);
    assert.deepEqual(t.resources, [URL_]);
    const byName = Object.fromEntries(t.frames.map((f) => [f.name, f]));
    // Positions as V8 gives them: the ( of the parameter list.
    assert.deepEqual(byName.heavy, { column: 22, line: 10, name: 'heavy', resourceId: 0 });
    assert.deepEqual(byName.spin, { column: 21, line: 3, name: 'spin', resourceId: 0 });
    // spin is always called by heavy or light, which alternate calls.
    for (const s of t.samples) {
      if (s.stackId === undefined) continue;
      const names = [];
      for (let id = s.stackId; id !== undefined; id = t.stacks[id].parentId)
        names.unshift(t.frames[t.stacks[id].frameId].name);
      assert.equal(names[0], 'alternate');
      if (names.length > 2) assert.match(names.slice(1).join('>'), /^(heavy|light)>spin$/);
    }
  });

  test(`${mode}: a stack deeper than the probes' array samples its outer frames and unwinds`, async () => {
    const P = getProbes();
    const kept = P.S.length - STACK_BASE; // frames the array holds
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
    work.deep(kept + 500, 30);
    const t = await p.stop();
    assertTraceInvariants(t);
    assert.equal(P.S[0], 0, 'every frame exited');
    assert.equal(P.w(P.S, 0, 0, 0), 0, 'the logging switch is off after stop()');
    let deepest = 0;
    for (const s of t.samples) {
      const names = [];
      for (let id = s.stackId; id !== undefined; id = t.stacks[id].parentId)
        names.push(t.frames[t.stacks[id].frameId].name);
      deepest = Math.max(deepest, names.length);
      assert.ok(
        names.every((n) => n === 'deep' || n === 'spin'),
        names.slice(0, 3).join('<'),
      );
    }
    // the log replays every record (up to the core's 4,096 frames); the shared stack holds `kept`
    assert.ok(deepest >= kept, `deepest sample: ${deepest} frames`);
  });

  // The 1.5–2.5 ratio target is measured by bench/instrument.mjs: on a loaded machine a
  // descheduled thread skews a wall-clock workload, so the unit test only checks the order.
  test(`${mode}: a function doing twice the work gets more samples`, async () => {
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
    work.alternate(20, 10);
    const c = counts(await p.stop());
    assert.ok(c.heavy > c.light, `heavy/light = ${c.heavy}/${c.light}`);
  });

  // The log sampler stamps only some records (a clock read costs more than the rest of a probe)
  // and learns which frames run long: once the first stamped window (at most 64 records) has
  // shown a stretch, every tick inside a long stretch must name the frame that ran it, not its
  // neighbours in the log (the calls of `tiny`). Wall-clock checks, so a descheduled thread
  // cannot move ticks between frames.
  for (const [fn, calls, owner] of [
    ['leafAfterCalls', 200, 'longLeaf'],
    ['selfBetweenCalls', 3, 'selfBetweenCalls'],
  ]) {
    test(`${mode}: ticks inside a long stretch name its frame (${fn}, ${calls} short calls around each)`, async () => {
      work.stretches.length = 0;
      const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
      work[fn](24, calls, 3);
      const t = await p.stop();
      // the sampler learns in the stretches of the first window (64 records: up to 11 rounds here)
      const later = work.stretches.slice(11);
      const inside = t.samples.filter((s) =>
        later.some(([a, b]) => s.timestamp > a + 0.1 && s.timestamp < b - 0.1),
      );
      const tops = inside.map((s) =>
        s.stackId === undefined ? '(idle)' : t.frames[t.stacks[s.stackId].frameId].name,
      );
      const right = tops.filter((n) => n === owner).length;
      assert.ok(inside.length >= 10, `ticks inside the stretches: ${inside.length}`);
      assert.ok(right >= 0.9 * inside.length, `on top: ${tops.join(' ')}`);
    });
  }

  // Pops make no call (probes.js): the log sampler learns that the stack is empty from the
  // probes' microtask reset (an await's wait) or places the fall itself (uninstrumented work
  // after instrumented calls seen to run short). Ticks inside those stretches have no stack.
  const topsInside = (t, stretches) =>
    t.samples
      .filter((s) => stretches.some(([a, b]) => s.timestamp > a + 0.5 && s.timestamp < b - 0.5))
      .map((s) =>
        s.stackId === undefined ? '(idle)' : t.frames[t.stacks[s.stackId].frameId].name,
      );
  test(`${mode}: an instrumented function's await is idle from its task's end`, async () => {
    work.stretches.length = 0;
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
    await work.awaitGaps(8, 15);
    const tops = topsInside(await p.stop(), work.stretches);
    assert.ok(tops.length >= 30, `ticks inside the waits: ${tops.length}`);
    const idle = tops.filter((n) => n === '(idle)').length;
    assert.ok(idle >= 0.9 * tops.length, `on top: ${tops.join(' ')}`);
  });

  test(`${mode}: uninstrumented work after short instrumented calls is idle`, async () => {
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
    const stretches = [];
    let s = 0;
    for (let r = 0; r < 24; r++) {
      for (let i = 0; i < 3; i++) s = work.tiny(s);
      const start = performance.now(),
        end = start + 3;
      while (performance.now() < end) s++;
      stretches.push([start, performance.now()]);
    }
    // (the sampler learns that `tiny` runs short in the first rounds; the last stretch ends
    // at stop(), with no next call to place the fall at: it stays tiny's)
    const tops = topsInside(await p.stop(), stretches.slice(4, -1));
    assert.ok(tops.length >= 10, `ticks inside the stretches: ${tops.length}`);
    const idle = tops.filter((n) => n === '(idle)').length;
    assert.ok(idle >= 0.9 * tops.length, `on top: ${tops.join(' ')}`);
  });

  test(`${mode}: time outside instrumented code is an idle sample with no stack`, async () => {
    // Counts kept low: a loaded machine may deschedule the sampler worker for a while.
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
    await work.idleThenWork(100);
    const c = counts(await p.stop());
    assert.ok(c['(idle)'] >= 3, `idle samples: ${c['(idle)']}`);
    assert.ok(c.spin >= 3, `spin samples: ${c.spin}`);
  });

  test(`${mode}: sampleInterval is the next whole millisecond, at least 1`, async () => {
    for (const [asked, used] of [
      [0, 1],
      [0.2, 1],
      [2.5, 3],
      [10, 10],
    ]) {
      const p = new Profiler({ sampleInterval: asked, maxBufferSize: 10 });
      assert.equal(p.sampleInterval, used);
      await p.stop();
    }
  });

  test(`${mode}: a full buffer fires samplebufferfull once; stop() then resolves with the capped trace`, async () => {
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 5 });
    let fired = 0;
    p.onsamplebufferfull = () => {
      fired++;
    };
    // The samplers' timers do not keep Node alive (a page's would run anyway): this one does.
    const keep = setTimeout(() => {}, 10000);
    const done = new Promise((r) => p.addEventListener('samplebufferfull', r));
    work.spin(30);
    await done;
    clearTimeout(keep);
    assert.equal(fired, 1);
    assert.equal((await p.stop()).samples.length, 5);
  });

  test(`${mode}: concurrent profilers each get their own trace; stop() twice rejects`, async () => {
    const a = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
    work.heavy(10);
    const b = new Profiler({ sampleInterval: 5, maxBufferSize: 100000 });
    work.light(30);
    const tb = await b.stop();
    work.heavy(10);
    const ta = await a.stop();
    await assert.rejects(
      a.stop(),
      (e) => e instanceof DOMException && e.name === 'InvalidStateError',
    );
    assert.ok(ta.samples.length > tb.samples.length);
    assert.ok(counts(ta).heavy > 0 && counts(ta).light > 0);
    assert.equal(counts(tb).heavy || 0, 0);
    assertTraceInvariants(ta);
    assertTraceInvariants(tb);
  });
}

test('an instrumentation trace goes through every exporter unchanged', async () => {
  const core = loadCore();
  const { toCpuProfile, toSpeedscope, toTraceEvents, toFirefoxProfile } = createExporters(core);
  const Profiler = createProfilerClass(core, { source: createInstrumentSource({ mode: 'log' }) });
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  work.alternate(3, 5);
  const t = await p.stop();
  const cp = toCpuProfile(t);
  const spin = cp.nodes.find((n) => n.callFrame.functionName === 'spin');
  assert.deepEqual(
    [spin.callFrame.url, spin.callFrame.lineNumber, spin.callFrame.columnNumber],
    [URL_, 2, 20], // 0-based: line 3, column 21 (the ( of spin's parameters)
  );
  assert.equal(cp.samples.length, t.samples.length);
  assert.ok(
    toSpeedscope(t).shared.frames.some(
      (f) => f.name === 'heavy' && f.file === URL_ && f.line === 10,
    ),
  );
  assert.ok(toTraceEvents(t).traceEvents.length > 0);
  assert.ok(toFirefoxProfile(t).threads.length === 1);
});

test('without instrumented code the source declines and the constructor says what would enable it', () => {
  const source = createInstrumentSource({ mode: 'log' });
  const original = source.available;
  source.available = () => false;
  const Bare = createProfilerClass(loadCore(), { source: [source] });
  assert.throws(
    () => new Bare({ sampleInterval: 1, maxBufferSize: 1 }),
    (e) =>
      e instanceof DOMException &&
      e.name === 'NotAllowedError' &&
      /perfshim instrument/.test(e.message),
  );
  source.available = original;
});
