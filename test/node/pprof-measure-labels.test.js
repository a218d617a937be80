// toPprof's measure labels: each sample carries the measures whose [start, end] holds it, in
// start order, as a scan of every measure per sample finds them, on random overlapping measures
// (long, nested, zero-length, negative durations, between two samples, repeated names); samples
// with the same stack and the same labels are one pprof sample. (The walk that replaced the
// per-sample scan is near-linear: bench/export.mjs times it; no timing here.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { toPprof } from '../../glue/export/pprof.js';

/** A seeded generator (mulberry32), so a failure reproduces. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fixture(seed, nSamples, nMeasures) {
  const r = random(seed);
  const trace = {
    resources: ['file:///a.js'],
    frames: [
      { name: 'a', resourceId: 0, line: 1, column: 1 },
      { name: 'b', resourceId: 0, line: 9, column: 1 },
    ],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples: Array.from({ length: nSamples }, (_, i) => ({
      timestamp: 10 + i * 2, // whole ms: the .cpuprofile's µs are exact
      stackId: r() < 0.5 ? 0 : 1,
    })),
  };
  const span = 10 + nSamples * 2;
  const entries = Array.from({ length: nMeasures }, (_, i) => {
    const kind = r();
    const startTime = Math.floor(r() * span * 2) / 2; // on samples and between them
    const duration =
      kind < 0.1
        ? 0
        : kind < 0.2
          ? -Math.floor(r() * 20)
          : kind < 0.3
            ? span
            : Math.floor(r() * 40) / 2;
    return { entryType: 'measure', name: `m${i % 7}`, startTime, duration };
  });
  return { trace, entries };
}

/** Sample labels by the naive rule: every measure around the sample's time, in start order. */
function expected({ trace, entries }) {
  const ms = entries
    .map((e) => ({
      name: e.name,
      start: Math.min(e.startTime, e.startTime + e.duration),
      end: Math.max(e.startTime, e.startTime + e.duration),
    }))
    .sort((x, y) => x.start - y.start);
  const rows = new Map();
  for (const s of trace.samples) {
    const labels = ms
      .filter((m) => m.start <= s.timestamp && s.timestamp <= m.end)
      .map((m) => m.name);
    const key = `${s.stackId === 0 ? 'a' : 'b<a'}|${labels.join(',')}`;
    rows.set(key, (rows.get(key) || 0) + 1);
  }
  return rows;
}

function actual(bytes) {
  const p = Profile.decode(gunzipSync(bytes));
  const s = (i) => p.stringTable.strings[Number(i)];
  const name = new Map(p.function.map((f) => [Number(f.id), s(f.name)]));
  const rows = new Map();
  for (const x of p.sample) {
    const stack = x.locationId.map((id) => name.get(Number(id))).join('<');
    const key = `${stack}|${x.label.map((l) => s(l.str)).join(',')}`;
    assert.ok(!rows.has(key), `one pprof sample per stack and labels: ${key}`);
    rows.set(key, Number(x.value[0]));
  }
  return rows;
}

for (const [seed, nSamples, nMeasures] of [
  [1, 50, 0],
  [2, 50, 1],
  [3, 200, 40],
  [4, 400, 300],
  [5, 30, 500],
]) {
  test(`labels as a naive scan gives them: seed ${seed}, ${nSamples} samples, ${nMeasures} measures`, () => {
    const f = fixture(seed, nSamples, nMeasures);
    assert.deepEqual(actual(toPprof(f.trace, { entries: f.entries, interval: 2 })), expected(f));
  });
}
