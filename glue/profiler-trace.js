// The JS side of the core's trace trie (src/trace.h): feed a trace from a V8 CPU profile, a
// native ProfilerTrace or frame lists, and read it back as the ProfilerTrace dictionary. Every
// source goes through here, so every trace has the same shape whatever produced it.
import { statusError } from './errors.js';
import * as abi from './abi.js';

/** ProfilerMarker values by PS_MARKER_* code ('' for none), from the generated ABI. */
export const MARKERS = Object.freeze(Object.entries(abi).reduce((list, [k, v]) => {
  if (k.startsWith('PS_MARKER_') && k !== 'PS_MARKER_COUNT') list[v] = k === 'PS_MARKER_NONE' ? '' : k.slice(10).toLowerCase();
  return list;
}, []));
const MARKER_CODE = new Map(MARKERS.map((m, i) => [m, i]));
const { PS_E_PARSE, PS_E_LIMIT, PS_NO_PARENT } = abi;
const CONTEXT = 'perfshim profiler';

export function createTraceCodec(core) {
  const check = (status) => core.check(status, CONTEXT);
  const strings = (h, kind) => core.takeStrings(check(core.x.ps_trace_strings(h, kind)));

  return {
    /** A new trace capped at `maxSamples`; returns its handle. */
    create(maxSamples) { return check(core.x.ps_trace_new(maxSamples >>> 0)); },
    free(h) { core.x.ps_trace_free(h); },

    /** {resources, frames, stacks, samples, full, maxSamples, bytes} of a trace. */
    info(h) {
      check(core.x.ps_trace_info(h));
      const o = core.out();
      return { resources: o[0], frames: o[1], stacks: o[2], samples: o[3], full: o[4] === 1,
        maxSamples: o[5], bytes: o[6] };
    },

    /**
     * Import a V8 CPU profile (Profiler.stop's result.profile) into trace `h`. `offsetMs` maps
     * V8 time (µs) onto performance.now(): now = us / 1000 - offsetMs. Samples at or before
     * `afterMs` or after `untilMs` are skipped. Returns the number of samples appended.
     */
    importV8(h, profile, offsetMs, afterMs = -Infinity, untilMs = Infinity) {
      const nodes = profile.nodes;
      const n = nodes.length;
      // Parents from the children lists (V8 gives children, the core wants parents), and room
      // for each distinct string once: names and URLs repeat across a profile's nodes.
      const parent = new Map();
      const seen = new Map();  // string -> byte offset in the region, or -1 until placed
      let room = 0;
      for (let i = 0; i < n; i++) {
        const node = nodes[i];
        const cf = node.callFrame;
        if (!seen.has(cf.functionName)) { seen.set(cf.functionName, -1); room += cf.functionName.length * 3; }
        if (!seen.has(cf.url)) { seen.set(cf.url, -1); room += cf.url.length * 3; }
        const ch = node.children;
        if (ch) for (let k = 0; k < ch.length; k++) parent.set(ch[k], node.id);
      }
      const recBytes = n * 32;
      const ptr = core.reserve(recBytes + room);
      const words = core.u32(), w0 = ptr >>> 2;
      const lens = new Map();
      let at = 0;
      const place = (str) => {
        let off = seen.get(str);
        if (off >= 0) return off;
        off = at;
        const len = core.writeString(str, ptr + recBytes + at);
        at += len;
        seen.set(str, off);
        lens.set(str, len);
        return off;
      };
      for (let i = 0, w = w0; i < n; i++, w += 8) {
        const node = nodes[i];
        const cf = node.callFrame;
        const p = parent.get(node.id);
        words[w] = node.id;
        words[w + 1] = p === undefined ? PS_NO_PARENT : p;
        words[w + 2] = place(cf.functionName);
        words[w + 3] = lens.get(cf.functionName);
        words[w + 4] = place(cf.url);
        words[w + 5] = lens.get(cf.url);
        words[w + 6] = cf.lineNumber + 1;   // V8: 0-based, -1 unknown -> 1-based, 0 absent
        words[w + 7] = cf.columnNumber + 1;
      }
      check(core.x.ps_trace_import_v8_nodes(h, n, at));
      const samples = profile.samples || [], deltas = profile.timeDeltas || [];
      const m = Math.min(samples.length, deltas.length);
      if (!m) return 0;
      const ids = core.i32(), at0 = core.reserve(m * 8) >>> 2;
      if (samples.length === m) ids.set(samples, at0); else for (let k = 0; k < m; k++) ids[at0 + k] = samples[k];
      if (deltas.length === m) ids.set(deltas, at0 + m); else for (let k = 0; k < m; k++) ids[at0 + m + k] = deltas[k];
      return check(core.x.ps_trace_import_v8_samples(h, m, profile.startTime, offsetMs, afterMs, untilMs));
    },

    /**
     * Re-encode a ProfilerTrace (e.g. Chromium's native one) into trace `h`: ids are re-interned
     * (§get an element ID), so duplicates collapse and the result obeys the core's invariants.
     * Samples after `untilMs` or at or before `afterMs` are skipped. Returns the number of samples appended.
     */
    importTrace(h, t, untilMs = Infinity, afterMs = -Infinity) {
      const rmap = new Array(t.resources.length);
      for (let i = 0; i < t.resources.length; i++) {
        rmap[i] = check(core.x.ps_trace_resource(h, core.putString(String(t.resources[i]))));
      }
      const fmap = new Array(t.frames.length);
      for (let i = 0; i < t.frames.length; i++) {
        const f = t.frames[i];
        const r = f.resourceId === undefined ? -1 : rmap[f.resourceId];
        if (r === undefined) throw statusError(PS_E_PARSE, CONTEXT, `frame ${i} names resource ${f.resourceId}, which does not exist`);
        fmap[i] = check(core.x.ps_trace_frame(h, core.putString(String(f.name)), r, f.line || 0, f.column || 0));
      }
      // Stacks may (in principle) name a parent that comes later: resolve with memoization,
      // iteratively (walk up to a known ancestor, then intern downwards), so that a very deep
      // stack cannot overflow the JavaScript stack.
      const smap = new Array(t.stacks.length);
      const resolve = (id) => {
        const chain = [];
        let cur = id;
        while (cur !== undefined) {
          const known = smap[cur];
          if (known === null) throw statusError(PS_E_PARSE, CONTEXT, 'the stacks of the trace form a cycle');
          if (known !== undefined) break;
          const s = t.stacks[cur];
          if (!s || fmap[s.frameId] === undefined) throw statusError(PS_E_PARSE, CONTEXT, `stack ${cur} is malformed`);
          smap[cur] = null; // on the walk: meeting it again is a cycle
          chain.push(cur);
          cur = s.parentId;
        }
        let parent = cur === undefined ? -1 : smap[cur];
        for (let i = chain.length - 1; i >= 0; i--) {
          const c = chain[i];
          parent = smap[c] = check(core.x.ps_trace_stack(h, parent, fmap[t.stacks[c].frameId]));
        }
        return parent;
      };
      let added = 0;
      for (let i = 0; i < t.samples.length; i++) {
        const s = t.samples[i];
        if (!Number.isFinite(s.timestamp)) throw statusError(PS_E_PARSE, CONTEXT, `sample ${i} has no finite timestamp`);
        if (s.timestamp > untilMs || s.timestamp <= afterMs) continue;
        const stack = s.stackId === undefined ? -1 : resolve(s.stackId);
        const marker = s.marker === undefined || s.marker === null ? 0 : MARKER_CODE.get(s.marker);
        const r = core.x.ps_trace_sample(h, s.timestamp, stack, marker === undefined ? MARKER_CODE.get('other') : marker);
        if (r === PS_E_LIMIT) break;
        check(r);
        added++;
      }
      return added;
    },

    /** Append a sample given its frames (objects {name, resource?, line?, column?}, outermost
     *  first): O(depth). Returns false when the buffer is full. */
    addSample(h, timestamp, frames, marker = '') {
      const ids = frames.map((f) => {
        const r = f.resource === undefined ? -1 : check(core.x.ps_trace_resource(h, core.putString(f.resource)));
        return check(core.x.ps_trace_frame(h, core.putString(f.name), r, f.line || 0, f.column || 0));
      });
      core.putU32(ids);
      const r = core.x.ps_trace_sample_frames(h, timestamp, ids.length, MARKER_CODE.get(marker) || 0);
      if (r === PS_E_LIMIT) return false;
      check(r);
      return true;
    },

    /** The timestamp of the last sample of trace `h` (-Infinity when it has none). */
    lastTimestamp(h) {
      const n = this.info(h).samples;
      return n ? core.f64()[(core.x.ps_trace_column(h, abi.PS_COL_SAMPLE_TIME) >>> 3) + n - 1] : -Infinity;
    },

    /** Merge trace `src` into `dst`; returns the number of samples appended. */
    merge(dst, src) { return check(core.x.ps_trace_merge(dst, src)); },

    /**
     * The ProfilerTrace dictionary of trace `h`: plain objects, optional members absent when
     * undefined, members in the order WebIDL's dictionary-to-JS conversion gives (lexicographic,
     * as Chromium's native traces have them).
     */
    read(h) {
      const info = this.info(h);
      const resources = strings(h, 0);
      const names = strings(h, 1);
      // Columns through the whole-memory views (nothing below allocates in the core).
      const u32 = core.u32(), i32 = core.i32(), f64 = core.f64(), u8 = core.u8();
      const col = (c, shift) => core.x.ps_trace_column(h, c) >>> shift;
      const nf = info.frames, ns = info.stacks, nsm = info.samples;
      const fName = col(abi.PS_COL_FRAME_NAME, 2), fRes = col(abi.PS_COL_FRAME_RESOURCE, 2);
      const fLine = col(abi.PS_COL_FRAME_LINE, 2), fCol = col(abi.PS_COL_FRAME_COLUMN, 2);
      const frames = new Array(nf);
      for (let i = 0; i < nf; i++) {
        const f = {};
        if (u32[fCol + i]) f.column = u32[fCol + i];
        if (u32[fLine + i]) f.line = u32[fLine + i];
        f.name = names[u32[fName + i]];
        if (i32[fRes + i] >= 0) f.resourceId = i32[fRes + i];
        frames[i] = f;
      }
      const sParent = col(abi.PS_COL_STACK_PARENT, 2), sFrame = col(abi.PS_COL_STACK_FRAME, 2);
      const stacks = new Array(ns);
      for (let i = 0; i < ns; i++) {
        const p = i32[sParent + i], frameId = u32[sFrame + i];
        stacks[i] = p >= 0 ? { frameId, parentId: p } : { frameId };
      }
      const ts = col(abi.PS_COL_SAMPLE_TIME, 3), st = col(abi.PS_COL_SAMPLE_STACK, 2);
      const mk = col(abi.PS_COL_SAMPLE_MARKER, 0);
      const samples = new Array(nsm);
      for (let i = 0; i < nsm; i++) {
        const m = u8[mk + i], stackId = i32[st + i], timestamp = f64[ts + i];
        if (m) samples[i] = stackId >= 0 ? { marker: MARKERS[m], stackId, timestamp } : { marker: MARKERS[m], timestamp };
        else samples[i] = stackId >= 0 ? { stackId, timestamp } : { timestamp };
      }
      return { frames, resources, samples, stacks };
    },
  };
}
