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
import { statusError } from './errors.js';
import { PS_E_PARSE as PARSE, PS_E_LIMIT as LIMIT } from './abi.js';
import { createTraceCodec, MARKERS } from './profiler-trace.js';

const MARKER_CODE = new Map(MARKERS.map((m, i) => [m, i]));
const U32 = 0xffffffff;

const isId = (v, n) => Number.isInteger(v) && v >= 0 && v < n;
const absent = (v) => v === undefined || v === null;
const describe = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** The URL of what is being profiled: the page's (or worker's) location, the main script's
 *  file: URL in Node, or a placeholder when there is neither (node -e, a REPL). */
function pageUrl() {
  const loc = globalThis.location;
  if (loc && typeof loc.href === 'string' && isUrl(loc.href)) return loc.href;
  const main = typeof process === 'object' && process && Array.isArray(process.argv) ? process.argv[1] : undefined;
  if (typeof main === 'string' && /^(\/|[A-Za-z]:[\\/])/.test(main)) {
    const segments = main.replace(/\\/g, '/').split('/');
    const path = segments.map((s, i) => (i <= 1 && /^[A-Za-z]:$/.test(s) ? s : encodeURIComponent(s))).join('/');
    return `file://${path.startsWith('/') ? '' : '/'}${path}`;
  }
  return 'perfshim:profile';
}
const isUrl = (s) => { try { new URL(s); return true; } catch { return false; } };

/** The exporters and importer over one core (the realm's, or a test's debug build). */
export function createExporters(core) {
  const codec = createTraceCodec(core);
  const fail = (op, detail) => statusError(PARSE, `perfshim ${op}`, detail);
  const check = (op, status) => core.check(status, `perfshim ${op}`);

  /** A scratch trace holding `t`, re-interned (ids may renumber; duplicates collapse). */
  function ingest(op, t) {
    if (t === null || typeof t !== 'object') throw fail(op, `expected a ProfilerTrace object, got ${describe(t)}`);
    for (const k of ['resources', 'frames', 'stacks', 'samples']) {
      if (!Array.isArray(t[k])) throw fail(op, `trace.${k} must be an array, got ${describe(t[k])}`);
    }
    const { resources, frames, stacks, samples } = t;
    const h = codec.create(samples.length);
    try {
      const rmap = new Int32Array(resources.length);
      for (let i = 0; i < resources.length; i++) {
        if (typeof resources[i] !== 'string') throw fail(op, `trace.resources[${i}] must be a string`);
        rmap[i] = check(op, core.x.ps_trace_resource(h, core.putString(resources[i])));
      }
      const fmap = new Int32Array(frames.length);
      for (let i = 0; i < frames.length; i++) {
        const f = frames[i];
        if (f === null || typeof f !== 'object') throw fail(op, `trace.frames[${i}] must be an object`);
        if (typeof f.name !== 'string') throw fail(op, `trace.frames[${i}].name must be a string`);
        if (!absent(f.resourceId) && !isId(f.resourceId, resources.length)) {
          throw fail(op, `trace.frames[${i}].resourceId ${f.resourceId} is not a resource id (0..${resources.length - 1})`);
        }
        for (const k of ['line', 'column']) {
          if (!absent(f[k]) && !isId(f[k], U32)) throw fail(op, `trace.frames[${i}].${k} must be a positive integer`);
        }
        const r = absent(f.resourceId) ? -1 : rmap[f.resourceId];
        fmap[i] = check(op, core.x.ps_trace_frame(h, core.putString(f.name), r, f.line || 0, f.column || 0));
      }
      for (let i = 0; i < stacks.length; i++) {
        const s = stacks[i];
        if (s === null || typeof s !== 'object') throw fail(op, `trace.stacks[${i}] must be an object`);
        if (!isId(s.frameId, frames.length)) throw fail(op, `trace.stacks[${i}].frameId ${s.frameId} is not a frame id`);
        if (!absent(s.parentId) && !isId(s.parentId, stacks.length)) {
          throw fail(op, `trace.stacks[${i}].parentId ${s.parentId} is not a stack id`);
        }
      }
      // Stacks may name a parent that comes later: resolve each chain iteratively (no recursion,
      // so a deep trace cannot overflow the JS stack), marking the chain being walked to find cycles.
      const smap = new Int32Array(stacks.length).fill(-2); // -2 unresolved, -3 on the current chain
      const chain = [];
      for (let i = 0; i < stacks.length; i++) {
        let cur = i;
        chain.length = 0;
        while (!absent(cur) && smap[cur] === -2) {
          smap[cur] = -3;
          chain.push(cur);
          cur = stacks[cur].parentId;
        }
        if (!absent(cur) && smap[cur] === -3) throw fail(op, `trace.stacks form a cycle through stack ${cur}`);
        let parent = absent(cur) ? -1 : smap[cur];
        for (let k = chain.length - 1; k >= 0; k--) {
          const id = chain[k];
          parent = smap[id] = check(op, core.x.ps_trace_stack(h, parent, fmap[stacks[id].frameId]));
        }
      }
      const order = new Array(samples.length);
      for (let i = 0; i < samples.length; i++) {
        const s = samples[i];
        if (s === null || typeof s !== 'object') throw fail(op, `trace.samples[${i}] must be an object`);
        if (typeof s.timestamp !== 'number' || !Number.isFinite(s.timestamp)) {
          throw fail(op, `trace.samples[${i}].timestamp must be a finite number, got ${describe(s.timestamp)} ${String(s.timestamp)}`);
        }
        if (!absent(s.stackId) && !isId(s.stackId, stacks.length)) throw fail(op, `trace.samples[${i}].stackId ${s.stackId} is not a stack id`);
        if (!absent(s.marker) && !(MARKER_CODE.get(s.marker) > 0)) throw fail(op, `trace.samples[${i}].marker ${String(s.marker)} is not a ProfilerMarker`);
        order[i] = i;
      }
      // Time order first (stable), so the core appends without moving samples around.
      order.sort((a, b) => samples[a].timestamp - samples[b].timestamp || a - b);
      for (const i of order) {
        const s = samples[i];
        const r = core.x.ps_trace_sample(h, s.timestamp, absent(s.stackId) ? -1 : smap[s.stackId],
          absent(s.marker) ? 0 : MARKER_CODE.get(s.marker));
        if (r !== LIMIT) check(op, r);
      }
      return h;
    } catch (e) {
      codec.free(h);
      throw e;
    }
  }


  function exportWith(op, trace, write) {
    const h = ingest(op, trace);
    try {
      check(op, write(h));
      return core.takeJSON();
    } finally {
      codec.free(h);
    }
  }

  /** Chrome DevTools .cpuprofile: {nodes, startTime, endTime, samples, timeDeltas} (µs). */
  function toCpuProfile(trace) {
    return exportWith('toCpuProfile', trace, (h) => core.x.ps_export_cpuprofile(h));
  }

  /** speedscope's file format: one sampled profile, unit milliseconds. */
  function toSpeedscope(trace, options = {}) {
    const name = options && options.name !== undefined ? String(options.name) : 'perfshim profile';
    return exportWith('toSpeedscope', trace, (h) => core.x.ps_export_speedscope(h, core.putString(name)));
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
    const { entries = [], pid = 1, tid = 1, url = pageUrl() } = options || {};
    if (!isId(pid, U32) || !isId(tid, U32)) throw fail(op, 'pid and tid must be non-negative integers');
    if (typeof url !== 'string' || !isUrl(url)) throw fail(op, 'options.url must be a URL');
    if (entries === null || typeof entries[Symbol.iterator] !== 'function') throw fail(op, 'options.entries must be iterable');
    // Convert the entries before the export, so a bad entry costs no document.
    const events = [];
    let measures = 0;
    const us = (ms) => Math.round(ms * 1000);
    let i = 0;
    for (const e of entries) {
      const at = `options.entries[${i++}]`;
      if (e === null || typeof e !== 'object') throw fail(op, `${at} must be a PerformanceEntry-like object`);
      if (e.entryType !== 'mark' && e.entryType !== 'measure') continue; // other types have no user-timing event
      if (typeof e.startTime !== 'number' || !Number.isFinite(e.startTime)) throw fail(op, `${at}.startTime must be a finite number`);
      const base = { name: String(e.name), cat: 'blink.user_timing', pid, tid };
      let detail;
      try { detail = e.detail === undefined || e.detail === null ? undefined : JSON.stringify(e.detail); } catch { detail = undefined; }
      if (e.entryType === 'mark') {
        const data = detail === undefined ? { startTime: e.startTime } : { startTime: e.startTime, detail };
        events.push({ ...base, ph: 'I', s: 't', ts: us(e.startTime), args: { data } });
      } else {
        const args = detail === undefined ? {} : { detail };
        if (typeof e.duration !== 'number' || !Number.isFinite(e.duration)) throw fail(op, `${at}.duration must be a finite number`);
        const id = `0x${(++measures).toString(16)}`;
        events.push({ ...base, ph: 'b', id, ts: us(e.startTime), args });
        events.push({ ...base, ph: 'e', id, ts: us(e.startTime + e.duration), args: {} });
      }
    }
    const doc = exportWith(op, trace, (h) => core.x.ps_export_trace_events(h, pid, tid, core.putString(url)));
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
    if (typeof timeOrigin !== 'number' || !Number.isFinite(timeOrigin)) throw fail(op, 'options.timeOrigin must be a finite number (ms since the epoch)');
    if (typeof interval !== 'number' || !Number.isFinite(interval) || interval < 0) throw fail(op, 'options.interval must be a non-negative number of ms');
    return exportWith(op, trace, (h) => core.x.ps_export_firefox(h, core.putString(String(name)), timeOrigin, interval));
  }

  /** Check a .cpuprofile and rebuild its node table as the core's V8 import reads it. */
  function normalizeCpuProfile(op, p) {
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw fail(op, `expected a .cpuprofile object, got ${describe(p)}`);
    if (!Array.isArray(p.nodes)) throw fail(op, `profile.nodes must be an array, got ${describe(p.nodes)}`);
    if (typeof p.startTime !== 'number' || !Number.isFinite(p.startTime)) throw fail(op, 'profile.startTime must be a finite number (µs)');
    const samples = absent(p.samples) ? [] : p.samples;
    const deltas = absent(p.timeDeltas) ? [] : p.timeDeltas;
    if (!Array.isArray(samples)) throw fail(op, 'profile.samples must be an array');
    if (!Array.isArray(deltas)) throw fail(op, 'profile.timeDeltas must be an array');
    if (samples.length !== deltas.length) throw fail(op, `profile.samples (${samples.length}) and profile.timeDeltas (${deltas.length}) differ in length`);
    const nodes = new Array(p.nodes.length);
    const index = new Map();
    let parentsGiven = false, childrenGiven = false;
    for (let i = 0; i < p.nodes.length; i++) {
      const n = p.nodes[i];
      const at = `profile.nodes[${i}]`;
      if (n === null || typeof n !== 'object') throw fail(op, `${at} must be an object`);
      if (!isId(n.id, U32)) throw fail(op, `${at}.id must be a non-negative integer`);
      if (index.has(n.id)) throw fail(op, `${at}.id ${n.id} is used twice`);
      const cf = n.callFrame;
      if (cf === null || typeof cf !== 'object') throw fail(op, `${at}.callFrame must be an object`);
      if (typeof cf.functionName !== 'string') throw fail(op, `${at}.callFrame.functionName must be a string`);
      if (!absent(cf.url) && typeof cf.url !== 'string') throw fail(op, `${at}.callFrame.url must be a string`);
      for (const k of ['lineNumber', 'columnNumber']) {
        if (!absent(cf[k]) && !(Number.isInteger(cf[k]) && cf[k] >= -1 && cf[k] < U32 - 1)) throw fail(op, `${at}.callFrame.${k} must be an integer >= -1`);
      }
      if (!absent(n.children) && !Array.isArray(n.children)) throw fail(op, `${at}.children must be an array`);
      if (!absent(n.children)) childrenGiven = true;
      if (!absent(n.parent)) parentsGiven = true;
      index.set(n.id, i);
      nodes[i] = {
        id: n.id,
        callFrame: {
          functionName: cf.functionName,
          url: absent(cf.url) ? '' : cf.url,
          lineNumber: absent(cf.lineNumber) ? -1 : cf.lineNumber,
          columnNumber: absent(cf.columnNumber) ? -1 : cf.columnNumber,
        },
        children: [],
      };
    }
    // Each node has at most one parent: from the children lists (the .cpuprofile's form) or the
    // parent members (the trace-event ProfileChunk's form).
    const parent = new Int32Array(nodes.length).fill(-1);
    const link = (child, par, at) => {
      const c = index.get(child);
      if (c === undefined) throw fail(op, `${at} names node ${child}, which does not exist`);
      if (parent[c] >= 0 && parent[c] !== par) throw fail(op, `node ${child} has two parents`);
      if (parent[c] === par) return;
      parent[c] = par;
      nodes[par].children.push(child);
    };
    for (let i = 0; i < nodes.length; i++) {
      const n = p.nodes[i];
      if (childrenGiven) {
        if (!absent(n.children)) n.children.forEach((c, k) => link(c, i, `profile.nodes[${i}].children[${k}]`));
      } else if (parentsGiven && !absent(n.parent)) {
        const par = index.get(n.parent);
        if (par === undefined) throw fail(op, `profile.nodes[${i}].parent names node ${n.parent}, which does not exist`);
        link(n.id, par, `profile.nodes[${i}]`);
      }
    }
    // No cycles: walk up from each node, marking finished nodes (each node visited once overall).
    const state = new Uint8Array(nodes.length); // 0 new, 1 on the current walk, 2 done
    const walk = [];
    for (let i = 0; i < nodes.length; i++) {
      walk.length = 0;
      let c = i;
      while (c >= 0 && state[c] === 0) { state[c] = 1; walk.push(c); c = parent[c]; }
      if (c >= 0 && state[c] === 1) throw fail(op, `the nodes form a cycle through node ${nodes[c].id}`);
      for (const k of walk) state[k] = 2;
    }
    const ids = new Int32Array(samples.length), dts = new Int32Array(samples.length);
    for (let k = 0; k < samples.length; k++) {
      if (!index.has(samples[k])) throw fail(op, `profile.samples[${k}] names node ${samples[k]}, which does not exist`);
      const d = deltas[k];
      if (typeof d !== 'number' || !Number.isFinite(d) || Math.abs(d) >= 2 ** 31) throw fail(op, `profile.timeDeltas[${k}] must be a finite number of µs`);
      ids[k] = samples[k];
      dts[k] = Math.round(d); // V8 writes whole µs; the import keeps µs resolution
    }
    return { nodes, startTime: p.startTime, samples: ids, timeDeltas: dts };
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
      try { p = JSON.parse(p); } catch (e) { throw fail(op, `not JSON: ${e.message}`); }
    }
    const offsetMs = options && options.offsetMs !== undefined ? options.offsetMs : 0;
    if (typeof offsetMs !== 'number' || !Number.isFinite(offsetMs)) throw fail(op, 'options.offsetMs must be a finite number');
    const profile = normalizeCpuProfile(op, p);
    const h = codec.create(profile.samples.length);
    try {
      codec.importV8(h, profile, offsetMs);
      return codec.read(h);
    } finally {
      codec.free(h);
    }
  }

  return { toCpuProfile, toTraceEvents, toSpeedscope, toFirefoxProfile, fromCpuProfile };
}
