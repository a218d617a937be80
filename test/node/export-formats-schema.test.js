// Each export checked against its format's documented schema, and against the trace it came
// from: the same samples, stacks (root first), positions and times on the trace's clock.
import test from 'node:test';
import assert from 'node:assert/strict';
import { getProfiler } from '../../glue/profiler/profiler.js';
import { createRealm } from '../../glue/timeline/performance.js';
import { outerWork } from './fixtures/profiler-work.mjs';
import { framesOf } from './profiler-helpers.mjs';
import {
  assertCpuProfile,
  assertSpeedscope,
  assertTraceEvents,
  assertFirefoxProfile,
  firefoxSampleNames,
  cpuProfileFrames,
} from './fixtures/export-schemas.mjs';
import { exportersUnderTest, HAND_BUILT } from './fixtures/export-traces.mjs';

const { toCpuProfile, toSpeedscope, toTraceEvents, toFirefoxProfile } = exportersUnderTest();

let nodeTraceCache;
async function nodeTrace() {
  if (!nodeTraceCache) {
    const p = new (getProfiler())({ sampleInterval: 1, maxBufferSize: 10000 });
    outerWork(60);
    nodeTraceCache = await p.stop();
  }
  return nodeTraceCache;
}

const sorted = (t) =>
  t.samples
    .map((s, i) => [s, i])
    .sort((a, b) => a[0].timestamp - b[0].timestamp || a[1] - b[1])
    .map(([s]) => s);
const META_NAME = (s) => (s.marker === 'gc' ? '(garbage collector)' : '(program)');

async function traces() {
  return { ...HAND_BUILT, NODE: await nodeTrace() };
}

test('.cpuprofile: the documented shape, and each sample names its stack', async () => {
  for (const [name, t] of Object.entries(await traces())) {
    const cp = toCpuProfile(t);
    assertCpuProfile(cp);
    const ss = sorted(t);
    assert.equal(cp.samples.length, ss.length, name);
    let at = cp.startTime;
    cp.samples.forEach((id, i) => {
      at += cp.timeDeltas[i];
      assert.ok(Math.abs(at - ss[i].timestamp * 1000) <= 0.5 + 1e-6, `${name} sample ${i} time`);
      const want = framesOf(t, ss[i]).map((f) => f.name);
      const got = cpuProfileFrames(cp, id).map((cf) => cf.functionName);
      if (want.length) assert.deepEqual(got, want, `${name} sample ${i}`);
      else
        assert.equal(
          cp.nodes.find((n) => n.id === id).callFrame.functionName,
          META_NAME(ss[i]),
          `${name} sample ${i}`,
        );
    });
  }
});

test('speedscope: the documented shape, stacks root first, weights to the next sample (ms)', async () => {
  for (const [name, t] of Object.entries(await traces())) {
    const f = toSpeedscope(t, { name: `trace ${name}` });
    assertSpeedscope(f);
    assert.equal(f.name, `trace ${name}`);
    const p = f.profiles[0];
    const ss = sorted(t);
    assert.equal(p.samples.length, ss.length);
    // As speedscope's own .cpuprofile import: anonymous functions named after file and line, a
    // stackless sample on top of the stack the previous one left open (once).
    const display = (fr) => displayName(t, fr);
    let open = [];
    p.samples.forEach((stack, i) => {
      let want = framesOf(t, ss[i]).map((fr) => [display(fr), fr.line, fr.column]);
      if (!want.length) {
        const meta = [META_NAME(ss[i]), undefined, undefined];
        const at = open.findIndex((x) => x[0] === meta[0] && x[1] === undefined);
        want = at >= 0 ? open.slice(0, at + 1) : [...open, meta];
      }
      open = want;
      const got = stack.map((k) => [
        f.shared.frames[k].name,
        f.shared.frames[k].line,
        f.shared.frames[k].col,
      ]);
      assert.deepEqual(got, want, `${name} sample ${i}`);
      if (i + 1 < ss.length) {
        const gap = Math.round(ss[i + 1].timestamp * 1000) - Math.round(ss[i].timestamp * 1000);
        assert.ok(Math.abs(p.weights[i] - gap / 1000) < 1e-9, `${name} weight ${i}`);
      }
    });
    if (ss.length)
      assert.ok(Math.abs(p.startValue - ss[0].timestamp) <= 0.0005 + 1e-9, `${name} startValue`);
  }
});

test('speedscope frames carry the resource as file and 1-based line/col, absent when unknown', () => {
  const f = toSpeedscope(HAND_BUILT.UNICODE);
  assert.deepEqual(f.shared.frames[0], {
    name: 'ünïcödé 漢字 😀',
    file: 'file:///tmp/ü n i/cødé "q".js',
    line: 3,
    col: 4,
  });
  assert.deepEqual(f.shared.frames[2], { name: 'e\u0301 combining, \u2028 line sep, \ufeff bom' });
  assert.equal(f.profiles[0].name, 'perfshim profile');
  assert.equal(f.exporter, 'perfshim');
});

test('trace events: metadata, one Profile, chunks whose samples replay the trace on its clock', async () => {
  for (const [name, t] of Object.entries(await traces())) {
    const doc = toTraceEvents(t);
    const { profile, samples, deltas } = assertTraceEvents(doc);
    const ss = sorted(t);
    assert.equal(samples.length, ss.length, name);
    let at = profile.args.data.startTime;
    deltas.forEach((d, i) => {
      at += d;
      assert.ok(Math.abs(at - ss[i].timestamp * 1000) <= 0.5 + 1e-6, `${name} sample ${i} time`);
    });
    const chunkNodes = doc.traceEvents
      .filter((e) => e.name === 'ProfileChunk')
      .flatMap((e) => e.args.data.cpuProfile.nodes);
    samples.forEach((id, i) => {
      const want = framesOf(t, ss[i]).map((f) => f.name);
      if (want.length)
        assert.deepEqual(
          cpuProfileFrames({ nodes: chunkNodes }, id).map((cf) => cf.functionName),
          want,
          `${name} sample ${i}`,
        );
    });
  }
});

test('trace events: marks are instants and measures async pairs in blink.user_timing, in µs on the trace clock', async () => {
  const realm = createRealm(exportersUnderTestCore(), { host: false });
  const { performance } = realm;
  const t = await nodeTrace();
  const first = sorted(t)[0].timestamp;
  performance.mark('start', { startTime: first });
  performance.mark('named "odd"\n', { startTime: first + 1.5, detail: { step: 1 } });
  performance.measure('phase', { start: first, end: first + 10.25, detail: [1, 'two'] });
  performance.measure('phase', { start: first + 2, duration: 3 });
  const doc = toTraceEvents(t, { entries: performance.getEntries(), pid: 42, tid: 7 });
  assertTraceEvents(doc);
  const ut = doc.traceEvents.filter((e) => e.cat === 'blink.user_timing');
  const marks = ut.filter((e) => e.ph === 'I');
  assert.deepEqual(
    marks.map((e) => [e.name, e.ts]),
    [
      ['start', Math.round(first * 1000)],
      ['named "odd"\n', Math.round((first + 1.5) * 1000)],
    ],
  );
  assert.equal(marks[1].args.data.detail, '{"step":1}', "a mark's detail where Chromium writes it");
  const begins = ut.filter((e) => e.ph === 'b'),
    ends = ut.filter((e) => e.ph === 'e');
  assert.equal(begins.length, 2);
  assert.notEqual(begins[0].id, begins[1].id, 'two measures of one name are two pairs');
  const span = (b) => ends.find((e) => e.id === b.id).ts - b.ts;
  assert.deepEqual(
    begins.map(span).sort((a, b) => a - b),
    [3000, 10250],
  );
  assert.ok(doc.traceEvents.every((e) => e.pid === 42 && e.tid === 7));
  // The profile's first sample and the mark at its time share a ts: one clock.
  assert.equal(doc.traceEvents.find((e) => e.name === 'Profile').args.data.startTime, marks[0].ts);
});

test('trace events: entries of other types are left out, an empty entry list adds nothing', () => {
  const base = toTraceEvents(HAND_BUILT.GC_MARKERS);
  const withOthers = toTraceEvents(HAND_BUILT.GC_MARKERS, {
    entries: [{ name: 'x', entryType: 'resource', startTime: 1, duration: 2 }],
  });
  assert.deepEqual(withOthers, base);
  assert.equal(base.traceEvents.filter((e) => e.cat === 'blink.user_timing').length, 0);
});

/** A frame's name as speedscope shows it: an anonymous function after its file and line. */
function displayName(t, fr) {
  return (
    fr.name ||
    (fr.resourceId !== undefined && t.resources[fr.resourceId]
      ? `(anonymous ${t.resources[fr.resourceId].split('/').pop()}:${fr.line || 0})`
      : '(anonymous)')
  );
}

test('Firefox processed profile: the documented tables, prefix = parent, samples replay the trace', async () => {
  for (const [name, t] of Object.entries(await traces())) {
    const p = toFirefoxProfile(t, { timeOrigin: 1.7e12, name: `thread ${name}` });
    assertFirefoxProfile(p);
    assert.equal(p.meta.startTime, 1.7e12);
    assert.equal(p.threads[0].name, `thread ${name}`);
    const ss = sorted(t);
    const th = p.threads[0];
    assert.equal(th.samples.length, ss.length, name);
    ss.forEach((s, i) => {
      assert.ok(
        Math.abs(th.samples.time[i] - s.timestamp) <= 0.0005 + 1e-9,
        `${name} sample ${i} time`,
      );
      // An anonymous function is named as in speedscope (the profiler shows a name as it is).
      const want = framesOf(t, s).map((f) => displayName(t, f));
      const got = firefoxSampleNames(p, i);
      if (want.length) assert.deepEqual(got, want, `${name} sample ${i}`);
      else
        assert.deepEqual(
          got,
          s.marker === 'gc' ? ['(garbage collector)'] : [],
          `${name} sample ${i}`,
        );
    });
  }
});

test('Firefox frames keep 1-based positions and their script as resource and source', () => {
  const t = HAND_BUILT.UNICODE;
  const p = toFirefoxProfile(t);
  const th = p.threads[0],
    str = p.shared.stringArray;
  const f = th.funcTable;
  const i = f.name.findIndex((n) => str[n] === 'ünïcödé 漢字 😀');
  assert.deepEqual([f.lineNumber[i], f.columnNumber[i]], [3, 4]);
  assert.equal(str[th.resourceTable.name[f.resource[i]]], t.resources[0]);
  assert.equal(str[p.shared.sources.filename[f.source[i]]], t.resources[0]);
  assert.equal(f.isJS[i], true);
  const anon = f.name.findIndex((n) => str[n] === '(anonymous)');
  assert.deepEqual([f.resource[anon], f.source[anon], f.lineNumber[anon]], [-1, null, null]);
  assert.ok(!f.name.some((n) => str[n] === ''), 'no func has a blank name');
  // interval: the mean sample interval unless given
  assert.equal(p.meta.interval, 1);
  assert.equal(toFirefoxProfile(t, { interval: 0.25 }).meta.interval, 0.25);
});

function exportersUnderTestCore() {
  // A realm on a fresh core of its own, so its marks do not mix with other suites'.
  return exportersUnderTest.core();
}
