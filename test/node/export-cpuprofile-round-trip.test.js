// trace -> .cpuprofile -> trace keeps samples, stacks and frames: on the real Node profiler's
// traces and on hand-built ones (empty, stackless, gc markers, deep, shared prefixes, unicode).
import test from 'node:test';
import assert from 'node:assert/strict';
import { getProfiler } from '../../glue/profiler/profiler.js';
import { outerWork, spinFor } from './fixtures/profiler-work.mjs';
import { assertTraceInvariants, framesOf } from './profiler-helpers.mjs';
import { assertCpuProfile, cpuProfileFrames } from './fixtures/export-schemas.mjs';
import {
  exportersUnderTest,
  HAND_BUILT,
  assertRoundTrip,
  deep,
} from './fixtures/export-traces.mjs';

const { toCpuProfile, fromCpuProfile } = exportersUnderTest();

async function nodeTrace() {
  const Profiler = getProfiler();
  // A loaded machine can starve V8's sampler thread: profile again (at most 3 times) until the
  // trace has enough samples to make the round trip meaningful.
  let t;
  for (let attempt = 0; attempt < 3; attempt++) {
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 10000 });
    outerWork(60 * (attempt + 1));
    spinFor(20);
    t = await p.stop();
    assertTraceInvariants(t);
    if (t.samples.length > 5) break;
  }
  assert.ok(t.samples.length > 5, 'the profiler sampled');
  return t;
}

test('a Node profiler trace survives the round trip through a .cpuprofile', async () => {
  const t = await nodeTrace();
  const cp = toCpuProfile(t);
  assertCpuProfile(cp);
  const back = fromCpuProfile(cp);
  assertTraceInvariants(back);
  assertRoundTrip(t, back);
});

test('the round trip goes through JSON text as a file would', async () => {
  const t = await nodeTrace();
  const back = fromCpuProfile(JSON.stringify(toCpuProfile(t)));
  assertRoundTrip(t, back);
});

for (const [name, t] of Object.entries(HAND_BUILT)) {
  test(`a hand-built trace (${name}) survives the round trip`, () => {
    const cp = toCpuProfile(t);
    assertCpuProfile(cp);
    const back = fromCpuProfile(cp);
    assertTraceInvariants(back);
    assertRoundTrip(t, back);
  });
}

test('a trace read back is the same trace again: exporting it twice gives the same document', () => {
  const once = fromCpuProfile(toCpuProfile(HAND_BUILT.SHARED_PREFIXES));
  assert.deepEqual(fromCpuProfile(toCpuProfile(once)), once);
  assert.deepEqual(toCpuProfile(once), toCpuProfile(fromCpuProfile(toCpuProfile(once))));
});

test('positions become 0-based in the .cpuprofile and 1-based again in the trace', () => {
  const t = HAND_BUILT.SHARED_PREFIXES;
  const cp = toCpuProfile(t);
  const sorted = [...t.samples].sort((a, b) => a.timestamp - b.timestamp);
  cp.samples.forEach((id, i) => {
    const want = framesOf(t, sorted[i]).map((f) => ({
      name: f.name,
      url: f.resourceId === undefined ? '' : t.resources[f.resourceId],
      line: (f.line || 0) - 1,
      column: (f.column || 0) - 1,
    }));
    const got = cpuProfileFrames(cp, id).map((cf) => ({
      name: cf.functionName,
      url: cf.url,
      line: cf.lineNumber,
      column: cf.columnNumber,
    }));
    assert.deepEqual(got, want, `sample ${i}`);
  });
});

test('samples without a stack map to (program), gc-marked ones to (garbage collector)', () => {
  const cp = toCpuProfile(HAND_BUILT.GC_MARKERS);
  const nameOf = new Map(cp.nodes.map((n) => [n.id, n.callFrame.functionName]));
  assert.deepEqual(
    cp.samples.map((id) => nameOf.get(id)),
    ['main', '(garbage collector)', '(garbage collector)', '(program)', 'main'],
  );
  // Both meta nodes hang from the root, as V8 writes them.
  assert.ok(
    cp.nodes[0].children.includes(cp.samples[1]) && cp.nodes[0].children.includes(cp.samples[3]),
  );
});

/** A trace of one sample in one frame named `name`. */
const oneSample = (name, timestamp) => ({
  resources: [],
  frames: [{ name }],
  stacks: [{ frameId: 0 }],
  samples: [{ timestamp, stackId: 0 }],
});

test('endTime lies after the last sample (a single one: 1 ms after), so readers that keep samples before endTime keep them all', () => {
  const cp = toCpuProfile(oneSample('only', 42.5));
  assert.deepEqual([cp.startTime, cp.endTime, cp.timeDeltas], [42500, 43500, [0]]);
  assert.deepEqual(fromCpuProfile(cp).samples, [{ timestamp: 42.5, stackId: 0 }]);
});

test('times are µs on the trace clock; sub-µs parts round to the nearest µs', () => {
  const cp = toCpuProfile(HAND_BUILT.SHARED_PREFIXES);
  assert.equal(cp.startTime, 1235); // 1.2345678 ms
  assert.deepEqual(cp.timeDeltas, [0, 765, 0, 2000, 1000, 2000]);
  // Sampling ended one mean interval ((7000 - 1235) / 5 µs) after the last sample, at 7 ms.
  assert.equal(cp.endTime, 7000 + 1153);
  const back = fromCpuProfile(cp);
  assert.deepEqual(
    back.samples.map((s) => s.timestamp),
    [1.235, 2, 2, 4, 5, 7],
  );
});

test('fromCpuProfile with offsetMs moves a foreign profile onto another clock', () => {
  const cp = toCpuProfile(HAND_BUILT.GC_MARKERS);
  const shifted = { ...cp, startTime: cp.startTime + 5e9, endTime: cp.endTime + 5e9 };
  const back = fromCpuProfile(shifted, { offsetMs: 5e6 });
  assert.deepEqual(
    back.samples.map((s) => s.timestamp),
    [10, 11, 12, 13, 14],
  );
});

test('a .cpuprofile whose nodes name their parent (the ProfileChunk form) imports too', () => {
  const cp = toCpuProfile(HAND_BUILT.SHARED_PREFIXES);
  const parent = new Map();
  for (const n of cp.nodes) for (const c of n.children) parent.set(c, n.id);
  const withParents = {
    ...cp,
    nodes: cp.nodes.map(({ children, hitCount, ...n }) =>
      parent.has(n.id) ? { ...n, parent: parent.get(n.id) } : n,
    ),
  };
  assertRoundTrip(HAND_BUILT.SHARED_PREFIXES, fromCpuProfile(withParents));
});

test('a very deep stack (100,000 frames) exports and imports without recursion', () => {
  const t = deep(100000);
  const back = fromCpuProfile(toCpuProfile(t));
  assert.equal(back.stacks.length, 100000);
  assertRoundTrip(t, back);
});

test('lone surrogates in names reach the .cpuprofile as \\u escapes', () => {
  const cp = toCpuProfile(oneSample('a\ud800b', 1));
  assert.equal(cp.nodes.find((n) => n.id === cp.samples[0]).callFrame.functionName, 'a\ud800b');
});

test('a .cpuprofile written by node --cpu-prof imports, and exports back with the same samples', async () => {
  const { mkdtempSync, readdirSync, readFileSync, rmSync } = await import('node:fs');
  const { execFileSync } = await import('node:child_process');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-cpuprof-'));
  try {
    const work =
      'function leaf(n){let x=0;for(let i=0;i<n;i++)x+=Math.sqrt(i);return x}' +
      'function mid(){return leaf(2e5)}const end=Date.now()+150;while(Date.now()<end)mid();';
    execFileSync(process.execPath, [
      '--cpu-prof',
      '--cpu-prof-interval',
      '500',
      '--cpu-prof-dir',
      dir,
      '-e',
      work,
    ]);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    const text = readFileSync(join(dir, file), 'utf8');
    const original = JSON.parse(text);
    const t = fromCpuProfile(text, { offsetMs: original.startTime / 1000 });
    assertTraceInvariants(t);
    assert.ok(
      t.frames.some((f) => f.name === 'leaf') && t.frames.some((f) => f.name === 'mid'),
      'named functions arrive',
    );
    // Every V8 sample, in time order, against the trace's samples: same frames, same µs.
    const rows = [];
    let at = original.startTime;
    original.samples.forEach((id, k) => {
      at += original.timeDeltas[k];
      rows.push([
        at,
        cpuProfileFrames(original, id).map((cf) => [
          cf.functionName,
          cf.url,
          cf.lineNumber + 1,
          cf.columnNumber + 1,
        ]),
      ]);
    });
    rows.sort((a, b) => a[0] - b[0]);
    assert.equal(t.samples.length, rows.length);
    t.samples.forEach((s, k) => {
      assert.ok(
        Math.abs(s.timestamp - (rows[k][0] - original.startTime) / 1000) <= 0.001 + 1e-9,
        `sample ${k} time`,
      );
      const got = framesOf(t, s).map((f) => [
        f.name,
        f.resourceId === undefined ? '' : t.resources[f.resourceId],
        f.line || 0,
        f.column || 0,
      ]);
      assert.deepEqual(got, rows[k][1], `sample ${k} frames`);
    });
    assertRoundTrip(t, fromCpuProfile(toCpuProfile(t)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
