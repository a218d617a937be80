// pprof export (Node): a ProfilerTrace as the gzipped profile.proto that `go tool pprof`,
// Pyroscope, Grafana and the cloud profilers read, encoded with the npm `pprof-format` package.
//
// The trace goes through the core's .cpuprofile writer first (toCpuProfile), which checks it and
// gives each stack a node with V8's names for stackless samples ((program), (idle),
// (garbage collector)); this file only maps that tree onto pprof's tables:
//   function  one per distinct (name, url, line, column) of a node; start_line 1-based, 0 unknown;
//             a nameless function is named '(anonymous)', as DevTools shows it
//   location  one per function (a JS frame's position is its function's definition), line = start
//   sample    one per distinct (stack, measures around it): value [count, wall ns], where each
//             V8 sample weighs the time to the next one and the last one weighs the period
//   labels    `measure` = the name of every measure of options.entries whose [start, end]
//             holds the sample (so `pprof -tagfocus measure=...` selects a measure's samples)
//   comments  one per mark of options.entries: "mark <name> at <startTime> ms"
// time_nanos = timeOrigin + the first sample; duration_nanos covers the samples plus the last one's
// weight; period = options.interval, else the mean sample interval.
import { gzipSync } from 'node:zlib';
import * as pprof from 'pprof-format';
import { toCpuProfile, performance } from '../index.js';
import { marksAndMeasures, measureRuns } from './export-entries.js';

/**
 * A ProfilerTrace as gzipped pprof bytes (Uint8Array). Options: `entries` (marks and measures,
 * e.g. performance.getEntries()), `timeOrigin` (ms since the epoch of the trace's clock; default
 * this realm's performance.timeOrigin), `interval` (the sampling period in ms; default the mean).
 */
export function toPprof(trace, options = {}) {
  const { entries, timeOrigin = performance.timeOrigin, interval } = options || {};
  const fail = (detail) => new TypeError(`perfshim toPprof: ${detail}`);
  if (!Number.isFinite(timeOrigin))
    throw fail('options.timeOrigin must be a finite number (ms since the epoch)');
  if (interval !== undefined && (!Number.isFinite(interval) || interval < 0))
    throw fail('options.interval must be a non-negative number of ms');
  const list = marksAndMeasures(entries, fail);
  const marks = list.filter((e) => e.entryType === 'mark');
  const cp = toCpuProfile(trace); // checks the trace (TypeError naming what is wrong)

  const strings = new pprof.StringTable();
  const str = (s) => strings.dedup(s);
  const parent = new Map();
  const byId = new Map();
  for (const n of cp.nodes) {
    byId.set(n.id, n);
    for (const c of n.children || []) parent.set(c, n.id);
  }
  const root = cp.nodes.length ? cp.nodes[0].id : -1;

  // Functions and locations, created as samples reach them.
  const functions = [];
  const locations = [];
  const functionOf = new Map(); // frame key -> location id (= function id)
  const locationOfNode = new Map();
  function locationOf(nodeId) {
    let loc = locationOfNode.get(nodeId);
    if (loc !== undefined) return loc;
    const f = byId.get(nodeId).callFrame;
    const key = `${f.functionName}\u0000${f.url}\u0000${f.lineNumber}\u0000${f.columnNumber}`;
    loc = functionOf.get(key);
    if (loc === undefined) {
      loc = functions.length + 1;
      const startLine = f.lineNumber >= 0 ? f.lineNumber + 1 : 0;
      const name = str(f.functionName || '(anonymous)');
      functions.push(
        new pprof.Function({ id: loc, name, systemName: name, filename: str(f.url), startLine }),
      );
      const column = f.columnNumber >= 0 ? f.columnNumber + 1 : 0;
      const line = new pprof.Line({ functionId: loc, line: startLine, column });
      locations.push(new pprof.Location({ id: loc, line: [line] }));
      functionOf.set(key, loc);
    }
    locationOfNode.set(nodeId, loc);
    return loc;
  }
  const stackCache = new Map();
  function stackOf(nodeId) {
    let s = stackCache.get(nodeId);
    if (s) return s;
    s = [];
    for (let n = nodeId; n !== undefined && n !== root; n = parent.get(n)) s.push(locationOf(n)); // leaf first
    stackCache.set(nodeId, s);
    return s;
  }

  // Sample times (µs, the .cpuprofile's clock: µs since the time origin) and weights.
  const n = cp.samples.length;
  let t = cp.startTime;
  const times = cp.timeDeltas.map((d) => (t += d));
  const spanUs = n > 1 ? times[n - 1] - times[0] : 0;
  const periodUs = interval !== undefined ? interval * 1000 : n > 1 ? spanUs / (n - 1) : 0;

  // The measures around each sample (measureRuns: worked out again only where they change), one
  // label list id per distinct list of names.
  const keyName = str('measure');
  const samples = new Map(); // node + label list id -> Sample
  const labelIds = new Map(); // names joined -> id
  const ms = times.map((us) => us / 1000);
  for (const [first, end, names] of measureRuns(ms, list)) {
    const joined = names.join('\u0000');
    let labelId = labelIds.get(joined);
    if (labelId === undefined) labelIds.set(joined, (labelId = labelIds.size));
    for (let i = first; i < end; i++) {
      const key = `${cp.samples[i]}\u0000${labelId}`;
      const wallNs = Math.round((i + 1 < n ? times[i + 1] - times[i] : periodUs) * 1000);
      let s = samples.get(key);
      if (!s) {
        const locationId = stackOf(cp.samples[i]); // (its strings before the labels')
        const label = names.map((m) => new pprof.Label({ key: keyName, str: str(m) }));
        s = new pprof.Sample({ locationId, value: [0, 0], label });
        samples.set(key, s);
      }
      s.value[0] += 1;
      s.value[1] += wallNs;
    }
  }

  const originUs = Math.round(timeOrigin * 1000) + (n ? Math.round(times[0]) : 0);
  const profile = new pprof.Profile({
    sampleType: [
      new pprof.ValueType({ type: str('samples'), unit: str('count') }),
      new pprof.ValueType({ type: str('wall'), unit: str('nanoseconds') }),
    ],
    sample: [...samples.values()],
    location: locations,
    function: functions,
    stringTable: strings,
    timeNanos: BigInt(originUs) * 1000n,
    durationNanos: n ? Math.round((spanUs + periodUs) * 1000) : 0,
    periodType: new pprof.ValueType({ type: str('wall'), unit: str('nanoseconds') }),
    period: Math.round(periodUs * 1000),
    comment: marks.map((m) => str(`mark ${String(m.name)} at ${m.startTime.toFixed(3)} ms`)),
    defaultSampleType: str('wall'),
  });
  return new Uint8Array(gzipSync(profile.encode()));
}
