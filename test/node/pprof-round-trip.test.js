// toPprof: gzipped profile.proto decoded with pprof-format gives back the trace's stacks, names,
// files, lines, sample counts, wall times, period, time, measures as labels, marks as comments;
// bad input is a TypeError.
import test from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { toPprof } from '../../glue/export/pprof.js';
import { toTraceEvents } from '../../glue/index.js';
import { getProfiler } from '../../glue/profiler/profiler.js';
import { outerWork } from './fixtures/profiler-work.mjs';
import { GC_MARKERS, EMPTY, deep } from './fixtures/export-traces.mjs';

function decode(bytes) {
  assert.ok(bytes instanceof Uint8Array);
  assert.equal(bytes[0], 0x1f, 'gzip magic');
  assert.equal(bytes[1], 0x8b, 'gzip magic');
  const p = Profile.decode(gunzipSync(bytes));
  const s = (i) => p.stringTable.strings[Number(i)];
  const fn = new Map(
    p.function.map((f) => [
      Number(f.id),
      { name: s(f.name), file: s(f.filename), line: Number(f.startLine) },
    ]),
  );
  const loc = new Map(p.location.map((l) => [Number(l.id), fn.get(Number(l.line[0].functionId))]));
  return {
    p,
    s,
    fn,
    types: p.sampleType.map((v) => `${s(v.type)}/${s(v.unit)}`),
    samples: p.sample.map((x) => ({
      stack: x.locationId.map((id) => loc.get(Number(id)).name).join('<'),
      frames: x.locationId.map((id) => loc.get(Number(id))),
      count: Number(x.value[0]),
      wall: Number(x.value[1]),
      labels: x.label.map((l) => `${s(l.key)}=${s(l.str)}`),
    })),
  };
}

/** The trace's samples as leaf-first name chains, with V8's names for stackless ones and
 *  '(anonymous)' for nameless functions. */
function expectedStacks(t) {
  return t.samples.map((x) => {
    if (x.stackId === undefined) return x.marker === 'gc' ? '(garbage collector)' : '(program)';
    const names = [];
    for (let id = x.stackId; id !== undefined; id = t.stacks[id].parentId)
      names.push(t.frames[t.stacks[id].frameId].name || '(anonymous)');
    return names.join('<');
  });
}

function counts(list) {
  const m = new Map();
  for (const [k, n] of list) m.set(k, (m.get(k) || 0) + n);
  return m;
}

test('a hand-built trace: stacks, counts, wall times, period, time and duration', () => {
  const d = decode(toPprof(GC_MARKERS, { timeOrigin: 1_700_000_000_000 }));
  assert.deepEqual(d.types, ['samples/count', 'wall/nanoseconds']);
  assert.deepEqual(
    counts(d.samples.map((x) => [x.stack, x.count])),
    counts(expectedStacks(GC_MARKERS).map((k) => [k, 1])),
  );
  // Samples at 10..14 ms, 1 ms apart: each weighs 1 ms, the last the mean period (1 ms).
  assert.deepEqual(
    counts(d.samples.map((x) => [x.stack, x.wall])),
    new Map([
      ['main', 2e6],
      ['(garbage collector)', 2e6],
      ['(program)', 1e6],
    ]),
  );
  assert.equal(Number(d.p.period), 1e6);
  assert.equal(`${d.s(d.p.periodType.type)}/${d.s(d.p.periodType.unit)}`, 'wall/nanoseconds');
  assert.equal(BigInt(d.p.timeNanos), 1_700_000_000_010n * 1_000_000n);
  assert.equal(Number(d.p.durationNanos), 5e6);
  const main = d.samples.find((x) => x.stack === 'main').frames[0];
  assert.deepEqual(main, { name: 'main', file: 'https://a.test/app.js', line: 1 });
});

test("interval sets the period and the last sample's weight", () => {
  const d = decode(toPprof(GC_MARKERS, { timeOrigin: 0, interval: 0.25 }));
  assert.equal(Number(d.p.period), 250_000);
  assert.equal(
    d.samples.reduce((a, x) => a + x.wall, 0),
    4e6 + 250_000,
  );
});

test('a deep trace keeps its whole stack, leaf first, with lines', () => {
  const t = deep(300);
  const d = decode(toPprof(t));
  const leaf = d.samples.find((x) => x.frames.length === 300);
  assert.ok(leaf, 'the 300-deep sample is there');
  assert.equal(leaf.frames[0].name, 'f299');
  assert.equal(leaf.frames[0].line, 300);
  assert.equal(leaf.frames[299].name, 'f0');
});

test('an empty trace is a valid profile with no samples', () => {
  const d = decode(toPprof(EMPTY, { timeOrigin: 5 }));
  assert.equal(d.samples.length, 0);
  assert.equal(Number(d.p.durationNanos), 0);
  assert.equal(BigInt(d.p.timeNanos), 5_000_000n);
});

test('measures label the samples they hold; marks become comments', () => {
  const entries = [
    { entryType: 'measure', name: 'parse', startTime: 10.5, duration: 2 }, // 11, 12
    { entryType: 'measure', name: 'all', startTime: 9, duration: 10 }, // every sample
    { entryType: 'mark', name: 'ready', startTime: 3.25 },
    { entryType: 'resource', name: 'ignored', startTime: 1, duration: 1 },
  ];
  const d = decode(toPprof(GC_MARKERS, { entries, timeOrigin: 0 }));
  const labelled = counts(d.samples.map((x) => [x.labels.sort().join(','), x.count]));
  assert.deepEqual(
    labelled,
    new Map([
      ['measure=all', 3],
      ['measure=all,measure=parse', 2],
    ]),
  );
  assert.deepEqual(d.p.comment.map(d.s), ['mark ready at 3.250 ms']);
});

test('a real Node profiler trace round-trips: every sample counted, time on the epoch clock', async () => {
  const Profiler = getProfiler();
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 10000 });
  outerWork(60);
  const t = await p.stop();
  assert.ok(t.samples.length > 5, 'the profiler sampled');
  const d = decode(toPprof(t, { timeOrigin: 1000 }));
  assert.deepEqual(
    counts(d.samples.map((x) => [x.stack, x.count])),
    counts(expectedStacks(t).map((k) => [k, 1])),
  );
  const first = t.samples[0].timestamp,
    last = t.samples.at(-1).timestamp;
  assert.ok(
    Math.abs(Number(d.p.timeNanos) - (1000 + first) * 1e6) <= 1000,
    'time_nanos is timeOrigin + the first sample (µs precision)',
  );
  const wall = d.samples.reduce((a, x) => a + x.wall, 0);
  assert.ok(
    Math.abs(wall - Number(d.p.durationNanos)) <= t.samples.length * 1000,
    'the wall times add up to the duration',
  );
  assert.ok(
    Math.abs(Number(d.p.durationNanos) - ((last - first) * 1e6 + Number(d.p.period))) <= 2000,
  );
  const files = [...d.fn.values()].filter((f) => f.name === 'spinFor').map((f) => f.file);
  for (const f of files) assert.match(f, /profiler-work\.mjs$/);
});

test('bad input is a TypeError saying what is wrong', () => {
  assert.throws(() => toPprof(null), { name: 'TypeError' });
  assert.throws(
    () =>
      toPprof({ resources: [], frames: [], stacks: [], samples: [{ timestamp: 1, stackId: 3 }] }),
    { name: 'TypeError' },
  );
  assert.throws(() => toPprof(EMPTY, { timeOrigin: NaN }), {
    name: 'TypeError',
    message: /timeOrigin/,
  });
  assert.throws(() => toPprof(EMPTY, { interval: -1 }), { name: 'TypeError', message: /interval/ });
  assert.throws(() => toPprof(EMPTY, { entries: 5 }), { name: 'TypeError', message: /entries/ });
  assert.throws(
    () =>
      toPprof(EMPTY, {
        entries: [{ entryType: 'measure', name: 'x', startTime: 0, duration: NaN }],
      }),
    { name: 'TypeError', message: /duration/ },
  );
});

test('toPprof refuses the entries toTraceEvents refuses, with the same message', () => {
  const messageOf = (fn) => {
    try {
      fn();
    } catch (e) {
      assert.equal(e.name, 'TypeError');
      return e.message.replace(/^perfshim \w+: /, '');
    }
    assert.fail('no exception');
  };
  for (const entries of [
    5,
    null,
    [null],
    [{ entryType: 'mark', name: 'm', startTime: 'x' }],
    [{ entryType: 'measure', name: 'm', startTime: 1, duration: NaN }],
    [{ entryType: 'mark', name: 'a', startTime: 1 }, 7],
  ]) {
    const message = messageOf(() => toPprof(EMPTY, { entries }));
    assert.equal(
      message,
      messageOf(() => toTraceEvents(EMPTY, { entries })),
    );
  }
});
