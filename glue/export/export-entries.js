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
