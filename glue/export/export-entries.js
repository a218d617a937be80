// The marks and measures an exporter takes as options.entries (toTraceEvents in export.js,
// toPprof in pprof.js): any iterable of PerformanceEntry-like objects, e.g.
// performance.getEntries(); entries of other types are skipped. One reader, so both exporters
// accept and refuse the same entries with the same messages.

/** The marks and measures of `entries`, in order; undefined is none. What is not an entry is
 *  the exception fail(detail) makes, naming it. */
export function marksAndMeasures(entries, fail) {
  const list = [];
  if (entries === undefined) return list;
  if (entries === null || typeof entries[Symbol.iterator] !== 'function')
    throw fail('options.entries must be iterable');
  let i = 0;
  for (const e of entries) {
    const at = `options.entries[${i++}]`;
    if (e === null || typeof e !== 'object')
      throw fail(`${at} must be a PerformanceEntry-like object`);
    if (e.entryType !== 'mark' && e.entryType !== 'measure') continue;
    if (!Number.isFinite(e.startTime)) throw fail(`${at}.startTime must be a finite number`);
    if (e.entryType === 'measure' && !Number.isFinite(e.duration))
      throw fail(`${at}.duration must be a finite number`);
    list.push(e);
  }
  return list;
}

/** Runs of consecutive samples with the same measures around them (a measure holds a sample
 *  whose time is within [start, end]; durations may be negative): [[first, end, names]] over
 *  sample indexes, `times` in ms ascending, `names(active)` the run's names from the measures
 *  around it (in start order; default every name). Measures enter by start and leave by end as
 *  the samples advance, and the names are worked out again only where the set changed:
 *  O(samples + measures log measures + changes × overlap), not samples × overlap. */
export function measureRuns(times, entries, names = (active) => Array.from(active, (m) => m.name)) {
  const n = times.length;
  const measures = [];
  for (const e of entries) {
    if (e.entryType !== 'measure') continue;
    const a = e.startTime,
      b = a + e.duration;
    measures.push({ name: String(e.name), start: Math.min(a, b), end: Math.max(a, b) });
  }
  measures.sort((x, y) => x.start - y.start);
  if (!measures.length) return n ? [[0, n, []]] : [];
  const byEnd = measures.slice().sort((x, y) => x.end - y.end);
  const active = new Set();
  const runs = [];
  let next = 0,
    gone = 0,
    key;
  for (let i = 0; i < n; i++) {
    let changed = i === 0;
    while (next < measures.length && measures[next].start <= times[i]) {
      active.add(measures[next++]);
      changed = true;
    }
    while (gone < byEnd.length && byEnd[gone].end < times[i]) {
      active.delete(byEnd[gone++]);
      changed = true;
    }
    if (!changed) continue;
    const list = names(active);
    const k = list.join('\u0000');
    if (k === key) continue;
    key = k;
    if (runs.length) runs[runs.length - 1][1] = i;
    runs.push([i, n, list]);
  }
  return runs;
}
