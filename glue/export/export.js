// Trace exporters and the .cpuprofile importer: a ProfilerTrace (from the Profiler, Chromium, or
// a plain object built by hand or parsed from JSON) goes into a scratch trace of the core, the
// core writes the other tool's JSON (src/export.h), and we hand back the parsed document.
// Every ProfilerTrace is checked on the way in: what is not a trace is a TypeError that says what
// is wrong, never a crash, a hang or a half-written document.
//
// Formats (the documentation each follows is cited in src/export.c):
//   toCpuProfile     Chrome DevTools .cpuprofile (DevTools protocol Profiler.Profile)
//   toTraceEvents    Chrome trace-event JSON: the CPU profile (Profile/ProfileChunk) + user timing
//   toSpeedscope     speedscope's file format (sampled profile, milliseconds)
//   toFirefoxProfile the Firefox Profiler's processed profile format (version 58)
//   fromCpuProfile   .cpuprofile -> ProfilerTrace, through the core's V8 import

import { PS_E_PARSE as PARSE } from '../host/abi.js';
import { statusError } from '../host/errors.js';
import { createTraceCodec } from '../profiler/profiler-trace.js';
import { marksAndMeasures } from './export-entries.js';

const isU32 = (v) => Number.isInteger(v) && v >= 0 && v < 0xffffffff;

/** The URL of what is being profiled: the page's (or worker's) location, the main script's
 *  file: URL in Node, or a placeholder when there is neither (node -e, a REPL). */
function pageUrl() {
  const href = globalThis.location?.href;
  if (typeof href === 'string' && isUrl(href)) return href;
  const main = globalThis.process?.argv?.[1];
  if (typeof main !== 'string' || !/^(\/|[A-Za-z]:[\\/])/.test(main)) return 'perfshim:profile';
  const path = main
    .replace(/\\/g, '/')
    .split('/')
    .map((s, i) => (i <= 1 && /^[A-Za-z]:$/.test(s) ? s : encodeURIComponent(s)))
    .join('/');
  return `file://${path.startsWith('/') ? '' : '/'}${path}`;
}
const isUrl = (s) => {
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
};

/** The exporters and importer over one core (the realm's, or a test's debug build). */
export function createExporters(core) {
  const codec = createTraceCodec(core);
  const fail = (op, detail) => statusError(PARSE, `perfshim ${op}`, detail);

  /** fn(h) on a scratch trace, freed afterwards (no sample cap: the import takes them all). */
  function scratch(fn) {
    const h = codec.create(0xffffffff);
    try {
      return fn(h);
    } finally {
      codec.free(h);
    }
  }

  /** The document write(h) makes of `trace`, re-interned into a scratch trace (ids may
   *  renumber; duplicates collapse). */
  const exportWith = (op, trace, write) =>
    scratch((h) => {
      codec.importTrace(h, trace, Infinity, -Infinity, `perfshim ${op}`);
      core.check(write(h), `perfshim ${op}`);
      return core.takeJSON();
    });

  /** Chrome DevTools .cpuprofile: {nodes, startTime, endTime, samples, timeDeltas} (µs). */
  function toCpuProfile(trace) {
    return exportWith('toCpuProfile', trace, (h) => core.x.ps_export_cpuprofile(h));
  }

  /** speedscope's file format: one sampled profile, unit milliseconds. */
  function toSpeedscope(trace, options = {}) {
    const name = options && options.name !== undefined ? String(options.name) : 'perfshim profile';
    return exportWith('toSpeedscope', trace, (h) =>
      core.x.ps_export_speedscope(h, core.putString(name)),
    );
  }

  /**
   * Chrome trace-event JSON: {traceEvents} with the CPU profile (Profile/ProfileChunk) and the
   * marks (instant events) and measures (async begin/end pairs) of `entries` in category
   * blink.user_timing, as Chromium writes them (a mark's detail in args.data.detail, a measure's
   * in args.detail, JSON text); every ts in µs since the time origin, the trace's clock.
   * `url`: the page's URL for the main frame (default: location.href, or the main script's
   * file: URL in Node); DevTools drops the main thread of a trace whose URL does not parse.
   */
  function toTraceEvents(trace, options = {}) {
    const op = 'toTraceEvents';
    const { entries, pid = 1, tid = 1, url = pageUrl() } = options || {};
    if (!isU32(pid) || !isU32(tid)) throw fail(op, 'pid and tid must be non-negative integers');
    if (typeof url !== 'string' || !isUrl(url)) throw fail(op, 'options.url must be a URL');
    // Convert the entries before the export, so a bad entry costs no document.
    const events = [];
    let measures = 0;
    const us = (ms) => Math.round(ms * 1000);
    for (const e of marksAndMeasures(entries, (detail) => fail(op, detail))) {
      const base = { name: String(e.name), cat: 'blink.user_timing', pid, tid };
      let detail; // left out when JSON cannot hold it
      try {
        detail = e.detail == null ? undefined : JSON.stringify(e.detail);
      } catch {}
      const args = detail === undefined ? {} : { detail };
      if (e.entryType === 'mark') {
        const data = { startTime: e.startTime, ...args };
        events.push({ ...base, ph: 'I', s: 't', ts: us(e.startTime), args: { data } });
      } else {
        const id = `0x${(++measures).toString(16)}`;
        events.push({ ...base, ph: 'b', id, ts: us(e.startTime), args });
        events.push({ ...base, ph: 'e', id, ts: us(e.startTime + e.duration), args: {} });
      }
    }
    const doc = exportWith(op, trace, (h) =>
      core.x.ps_export_trace_events(h, pid, tid, core.putString(url)),
    );
    for (const ev of events) doc.traceEvents.push(ev);
    return doc;
  }

  /**
   * The Firefox Profiler's processed profile format (version 58): one thread whose stack table
   * is the trace's trie. `timeOrigin` (ms since the epoch, e.g. performance.timeOrigin) becomes
   * meta.startTime; `interval` (ms) defaults to the mean sample interval.
   */
  function toFirefoxProfile(trace, options = {}) {
    const op = 'toFirefoxProfile';
    const { name = 'perfshim', timeOrigin = 0, interval = 0 } = options || {};
    if (!Number.isFinite(timeOrigin))
      throw fail(op, 'options.timeOrigin must be a finite number (ms since the epoch)');
    if (!Number.isFinite(interval) || interval < 0)
      throw fail(op, 'options.interval must be a non-negative number of ms');
    return exportWith(op, trace, (h) =>
      core.x.ps_export_firefox(h, core.putString(String(name)), timeOrigin, interval),
    );
  }

  /**
   * A ProfilerTrace from a .cpuprofile (object or JSON text). Sample times are the profile's
   * µs / 1000 - offsetMs, in ms: a profile written by toCpuProfile comes back on its own clock
   * with offsetMs 0; pass `offsetMs: profile.startTime / 1000` to start another at 0.
   */
  function fromCpuProfile(json, options = {}) {
    const op = 'fromCpuProfile';
    let p = json;
    if (typeof p === 'string') {
      try {
        // A file saved with a UTF-8 BOM, read as text, starts with U+FEFF (not JSON whitespace).
        p = JSON.parse(p.charCodeAt(0) === 0xfeff ? p.slice(1) : p);
      } catch (e) {
        throw fail(op, `not JSON: ${e.message}`);
      }
    }
    const { offsetMs = 0 } = options || {};
    if (!Number.isFinite(offsetMs)) throw fail(op, 'options.offsetMs must be a finite number');
    return scratch((h) => {
      codec.importV8(h, p, offsetMs, -Infinity, Infinity, `perfshim ${op}`);
      return codec.read(h);
    });
  }

  return { toCpuProfile, toTraceEvents, toSpeedscope, toFirefoxProfile, fromCpuProfile };
}
