// The visit's measures and the Profiler source in the aggregates: the samples inside a visit's
// measures carry `measure` labels (one per measure around them, as toPprof labels a single trace)
// in the collector's pprof and in `perfshim aggregate`'s, the measure roots are no frames, the
// totals are those of the visit; the page client labels its upload with the Profiler source.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as pprof from 'pprof-format';
import { createCollector } from '../../glue/field/collector.js';
import { createField } from '../../glue/field/core.js';
import { measureRuns } from '../../glue/field/measured.js';
import { aggregateFiles } from '../../glue/cli/aggregate.js';
import { aggregateProfile } from '../../glue/field/pprof.js';

const ENTRIES = [
  { name: 'checkout', entryType: 'measure', startTime: 140, duration: 60 }, // 140-200
  { name: 'render', entryType: 'measure', startTime: 230, duration: -50 }, // 180-230
  { name: 'ready', entryType: 'mark', startTime: 150, duration: 0 },
];

/** An upload: main > hot, 20 samples 10 ms apart from 100 ms, with ENTRIES. */
function upload(field) {
  const h = field.trace();
  field.codec.importTrace(h, {
    resources: ['https://shop.example/app.js'],
    frames: [
      { name: 'main', resourceId: 0, line: 1, column: 1 },
      { name: 'hot', resourceId: 0, line: 20, column: 3 },
    ],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples: Array.from({ length: 20 }, (_, i) => ({ timestamp: 100 + i * 10, stackId: 1 })),
  });
  const bytes = field.encode(h, { labels: { release: 'v1' }, entries: ENTRIES, interval: 10 });
  field.free(h);
  return bytes;
}

/** {measure set: samples}, total wall ms, and the functions the samples use, of a pprof. */
function bySet(bytes) {
  const p = pprof.Profile.decode(bytes[0] === 0x1f ? gunzipSync(bytes) : bytes);
  const s = (i) => p.stringTable.strings[Number(i)];
  const fnOf = new Map(p.function.map((f) => [Number(f.id), s(f.name)]));
  const locOf = new Map(
    p.location.map((l) => [Number(l.id), fnOf.get(Number(l.line[0].functionId))]),
  );
  const sets = {};
  const used = new Set();
  let ms = 0;
  for (const smp of p.sample) {
    const names = smp.label.filter((l) => s(l.key) === 'measure').map((l) => s(l.str));
    assert.ok(smp.label.some((l) => s(l.key) === 'release' && s(l.str) === 'v1'));
    const k = names.join('+') || '-';
    sets[k] = (sets[k] || 0) + Number(smp.value[0]);
    ms += Number(smp.value[1]) / 1e6;
    for (const id of smp.locationId) used.add(locOf.get(Number(id)));
  }
  return { sets, ms, used: [...used].sort() };
}

const EXPECTED = { '-': 10, checkout: 4, 'checkout+render': 3, render: 3 };

test('measureRuns: runs of samples with the same measures around them', () => {
  const times = Array.from({ length: 20 }, (_, i) => 100 + i * 10);
  assert.deepEqual(measureRuns(times, ENTRIES), [
    [0, 4, []],
    [4, 8, ['checkout']],
    [8, 11, ['checkout', 'render']],
    [11, 14, ['render']],
    [14, 20, []],
  ]);
  assert.deepEqual(measureRuns(times, []), [[0, 20, []]]);
  assert.deepEqual(measureRuns([], ENTRIES), []);
});

test('the collector labels the samples inside each measure', async () => {
  const field = createField();
  const out = mkdtempSync(join(tmpdir(), 'perfshim-field-measures-'));
  const c = createCollector({ out, windowSeconds: 3600 });
  assert.deepEqual(c.ingest(upload(field)), [204, '']);
  assert.deepEqual(c.ingest(upload(field)), [204, '']);
  const [file] = await c.close();
  const r = bySet(readFileSync(file));
  assert.deepEqual(
    r.sets,
    Object.fromEntries(Object.entries(EXPECTED).map(([k, v]) => [k, 2 * v])),
  );
  assert.equal(r.ms, 2 * 200);
  assert.deepEqual(r.used, ['hot', 'main']); // the measure roots are labels, not frames
});

test('perfshim aggregate labels the samples inside each measure of the uploads', () => {
  const field = createField();
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-field-measures-'));
  const file = join(dir, 'visit.psf');
  writeFileSync(file, upload(field));
  const [g] = aggregateFiles([file, file], { field }).values();
  const r = bySet(aggregateProfile(g.read, { labels: { release: 'v1' } }).encode());
  assert.deepEqual(
    r.sets,
    Object.fromEntries(Object.entries(EXPECTED).map(([k, v]) => [k, 2 * v])),
  );
});

test('past maxSets, samples count unlabelled at the top', async () => {
  const field = createField();
  const h = field.trace();
  field.codec.importTrace(h, {
    frames: [{ name: 'f' }],
    stacks: [{ frameId: 0 }],
    samples: Array.from({ length: 10 }, (_, i) => ({ timestamp: i * 10, stackId: 0 })),
    resources: [],
  });
  const entries = Array.from({ length: 10 }, (_, i) => ({
    name: `m${i}`,
    entryType: 'measure',
    startTime: i * 10,
    duration: 1,
  }));
  const { createMeasuredAggregate } = await import('../../glue/field/measured.js');
  const m = createMeasuredAggregate(field, { maxSets: 3 });
  m.add(h, 10, entries);
  const r = bySet(aggregateProfile(m.read(), { labels: { release: 'v1' } }).encode());
  assert.deepEqual(r.sets, { m0: 1, m1: 1, m2: 1, '-': 7 });
  assert.equal(m.unlabelled, 7);
  m.free();
  field.free(h);
});
