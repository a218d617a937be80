// An aggregate of the field core (core.js read()) as gzipped pprof, encoded with the npm
// `pprof-format` package as glue/export/pprof.js encodes a single trace: one function and one
// location per frame (start_line and the location's line the frame's 1-based line, its column),
// one sample per stack with samples, value [count, wall ns]; the visit labels as pprof string
// labels on every sample (so `pprof -tagfocus route=/cart` selects them), and `measure` labels
// on the samples inside the visits' measures (the aggregate's measure roots, measured.js, left
// out of the stacks); time_nanos the window's start, duration_nanos its length, period the
// sampling interval.
import { gzipSync } from 'node:zlib';
import * as pprof from 'pprof-format';

/** The pprof Profile of aggregate `agg` ({frames, resources, stacks, count, time}). Options:
 *  `labels` ({name: value}), `startMs` and `durationMs` (ms since the epoch), `periodMs`. */
export function aggregateProfile(
  agg,
  { labels = {}, startMs = 0, durationMs = 0, periodMs = 10 } = {},
) {
  const strings = new pprof.StringTable();
  const str = (s) => strings.dedup(s);
  const functions = agg.frames.map(
    (f, i) =>
      new pprof.Function({
        id: i + 1,
        name: str(f.name || '(anonymous)'),
        systemName: str(f.name || '(anonymous)'),
        filename: str(f.resourceId === undefined ? '' : agg.resources[f.resourceId]),
        startLine: f.line || 0,
      }),
  );
  const locations = agg.frames.map(
    (f, i) =>
      new pprof.Location({
        id: i + 1,
        line: [new pprof.Line({ functionId: i + 1, line: f.line || 0, column: f.column || 0 })],
      }),
  );
  const label = Object.entries(labels).map(
    ([k, v]) => new pprof.Label({ key: str(k), str: str(String(v)) }),
  );
  // Each stack's locations leaf first, from its parent's (parents come first); a measure root
  // is no location: the stacks below it carry its names as labels instead.
  const measures = agg.measures || new Map();
  const paths = new Array(agg.stacks.length);
  const labelsOf = new Array(agg.stacks.length);
  const sample = [];
  agg.stacks.forEach((s, i) => {
    const top = s.parentId === undefined;
    const names = measures.get(i);
    if (top && names) {
      paths[i] = [];
      labelsOf[i] = [
        ...label,
        ...names.map((m) => new pprof.Label({ key: str('measure'), str: str(m) })),
      ];
      return;
    }
    paths[i] = [s.frameId + 1, ...(top ? [] : paths[s.parentId])];
    labelsOf[i] = top ? label : labelsOf[s.parentId];
    if (agg.count[i] > 0)
      sample.push(
        new pprof.Sample({
          locationId: paths[i],
          value: [agg.count[i], Math.round(agg.time[i] * 1e6)],
          label: labelsOf[i],
        }),
      );
  });
  return new pprof.Profile({
    sampleType: [
      new pprof.ValueType({ type: str('samples'), unit: str('count') }),
      new pprof.ValueType({ type: str('wall'), unit: str('nanoseconds') }),
    ],
    sample,
    location: locations,
    function: functions,
    stringTable: strings,
    timeNanos: BigInt(Math.round(startMs)) * 1000000n,
    durationNanos: Math.round(durationMs * 1e6),
    periodType: new pprof.ValueType({ type: str('wall'), unit: str('nanoseconds') }),
    period: Math.round(periodMs * 1e6),
    defaultSampleType: str('wall'),
  });
}

/** The same, gzipped (what `go tool pprof` and Pyroscope read). */
export function aggregateToPprof(agg, options) {
  return new Uint8Array(gzipSync(aggregateProfile(agg, options).encode()));
}

/** {name, file, self, total} per function of a pprof profile (gzipped or not): wall time in ms
 *  (the `wall` sample type, else the last one), self at the leaf, total once per stack. */
export function functionTimes(bytes) {
  const p = pprof.Profile.decode(bytes);
  const s = (i) => p.stringTable.strings[Number(i)] ?? '';
  const types = p.sampleType.map((t) => s(t.type));
  const vi = types.includes('wall') ? types.indexOf('wall') : types.length - 1;
  const toMs = s(p.sampleType[vi]?.unit) === 'nanoseconds' ? 1e-6 : 1;
  const fnOf = new Map();
  for (const f of p.function) fnOf.set(Number(f.id), `${s(f.name)}\u0000${s(f.filename)}`);
  const keyOf = new Map();
  for (const l of p.location)
    keyOf.set(Number(l.id), fnOf.get(Number(l.line[0]?.functionId)) ?? '?');
  const out = new Map();
  let all = 0;
  const at = (k) => {
    let r = out.get(k);
    if (!r) {
      const [name, file] = k.split('\u0000');
      out.set(k, (r = { name, file, self: 0, total: 0 }));
    }
    return r;
  };
  for (const smp of p.sample) {
    const v = Number(smp.value[vi]) * toMs;
    all += v;
    const keys = smp.locationId.map((id) => keyOf.get(Number(id)));
    if (keys.length) at(keys[0]).self += v;
    for (const k of new Set(keys)) at(k).total += v;
  }
  return { functions: out, total: all };
}
