// The JS side of the core's trace trie (src/trace.h): feed a trace from a V8 CPU profile, a
// native ProfilerTrace or frame lists, and read it back as the ProfilerTrace dictionary. Every
// source goes through here, so every trace has the same shape whatever produced it.
import { statusError } from './errors.js';

export const MARKERS = Object.freeze(['', 'script', 'gc', 'style', 'layout', 'paint', 'other']);
const MARKER_CODE = new Map(MARKERS.map((m, i) => [m, i]));
const COL = Object.freeze({ FRAME_NAME: 0, FRAME_RESOURCE: 1, FRAME_LINE: 2, FRAME_COLUMN: 3,
  STACK_PARENT: 4, STACK_FRAME: 5, SAMPLE_TIME: 6, SAMPLE_STACK: 7, SAMPLE_MARKER: 8 });
const NO_PARENT = 0xffffffff;
const CONTEXT = 'perfshim profiler';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const latin1 = new TextDecoder('latin1');

export function createTraceCodec(core) {
  const check = (status) => {
    if (status < 0) throw statusError(status, CONTEXT);
    return status;
  };

  function strings(h, kind) {
    const n = check(core.x.ps_trace_strings(h, kind));
    const o = core.out();
    const ptr = o[0], total = o[1], ascii = o[2] === 1;
    const lens = core.results(n);
    const bytes = new Uint8Array(core.x.memory.buffer, ptr, total);
    const out = new Array(n);
    if (ascii) {
      // One decode for the whole blob; byte offsets are string offsets.
      const all = latin1.decode(bytes);
      for (let i = 0, at = 0; i < n; at += lens[i], i++) out[i] = all.slice(at, at + lens[i]);
    } else {
      for (let i = 0, at = 0; i < n; at += lens[i], i++) out[i] = decoder.decode(bytes.subarray(at, at + lens[i]));
    }
    return out;
  }

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
      let ptr = core.x.ps_exchange_reserve(recBytes + room || 1);
      if (!ptr) throw statusError(-1, CONTEXT);
      const region = new Uint8Array(core.x.memory.buffer, ptr + recBytes, room);
      const words = new Uint32Array(core.x.memory.buffer, ptr, n * 8);
      const lens = new Map();
      let at = 0;
      const place = (str) => {
        let off = seen.get(str);
        if (off >= 0) return off;
        off = at;
        const len = str.length ? encoder.encodeInto(str, region.subarray(at)).written : 0;
        at += len;
        seen.set(str, off);
        lens.set(str, len);
        return off;
      };
      for (let i = 0, w = 0; i < n; i++, w += 8) {
        const node = nodes[i];
        const cf = node.callFrame;
        const p = parent.get(node.id);
        words[w] = node.id;
        words[w + 1] = p === undefined ? NO_PARENT : p;
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
      ptr = core.x.ps_exchange_reserve(m * 8);
      if (!ptr) throw statusError(-1, CONTEXT);
      const ids = new Int32Array(core.x.memory.buffer, ptr, m * 2);
      if (samples.length === m) ids.set(samples); else for (let k = 0; k < m; k++) ids[k] = samples[k];
      if (deltas.length === m) ids.set(deltas, m); else for (let k = 0; k < m; k++) ids[m + k] = deltas[k];
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
        if (r === undefined) throw statusError(-19, CONTEXT, `frame ${i} names resource ${f.resourceId}, which does not exist`);
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
          if (known === null) throw statusError(-19, CONTEXT, 'the stacks of the trace form a cycle');
          if (known !== undefined) break;
          const s = t.stacks[cur];
          if (!s || fmap[s.frameId] === undefined) throw statusError(-19, CONTEXT, `stack ${cur} is malformed`);
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
        if (!Number.isFinite(s.timestamp)) throw statusError(-19, CONTEXT, `sample ${i} has no finite timestamp`);
        if (s.timestamp > untilMs || s.timestamp <= afterMs) continue;
        const stack = s.stackId === undefined ? -1 : resolve(s.stackId);
        const marker = s.marker === undefined || s.marker === null ? 0 : MARKER_CODE.get(s.marker);
        const r = core.x.ps_trace_sample(h, s.timestamp, stack, marker === undefined ? MARKER_CODE.get('other') : marker);
        if (r === -7) break; // PS_E_LIMIT
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
      const ptr = core.x.ps_exchange_reserve(ids.length * 4 || 4);
      new Uint32Array(core.x.memory.buffer, ptr, ids.length).set(ids);
      const r = core.x.ps_trace_sample_frames(h, timestamp, ids.length, MARKER_CODE.get(marker) || 0);
      if (r === -7) return false;
      check(r);
      return true;
    },

    /** The timestamp of the last sample of trace `h` (-Infinity when it has none). */
    lastTimestamp(h) {
      const n = this.info(h).samples;
      return n ? new Float64Array(core.x.memory.buffer, core.x.ps_trace_column(h, COL.SAMPLE_TIME), n)[n - 1] : -Infinity;
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
      const buf = core.x.memory.buffer; // no allocation below this line
      const nf = info.frames, ns = info.stacks, nsm = info.samples;
      const col = (c, T, n) => (n ? new T(buf, core.x.ps_trace_column(h, c), n) : new T(0));
      const fName = col(COL.FRAME_NAME, Uint32Array, nf);
      const fRes = col(COL.FRAME_RESOURCE, Int32Array, nf);
      const fLine = col(COL.FRAME_LINE, Uint32Array, nf);
      const fCol = col(COL.FRAME_COLUMN, Uint32Array, nf);
      const frames = new Array(nf);
      for (let i = 0; i < nf; i++) {
        const f = {};
        if (fCol[i]) f.column = fCol[i];
        if (fLine[i]) f.line = fLine[i];
        f.name = names[fName[i]];
        if (fRes[i] >= 0) f.resourceId = fRes[i];
        frames[i] = f;
      }
      const sParent = col(COL.STACK_PARENT, Int32Array, ns);
      const sFrame = col(COL.STACK_FRAME, Uint32Array, ns);
      const stacks = new Array(ns);
      for (let i = 0; i < ns; i++) {
        stacks[i] = sParent[i] >= 0 ? { frameId: sFrame[i], parentId: sParent[i] } : { frameId: sFrame[i] };
      }
      const ts = col(COL.SAMPLE_TIME, Float64Array, nsm);
      const st = col(COL.SAMPLE_STACK, Int32Array, nsm);
      const mk = col(COL.SAMPLE_MARKER, Uint8Array, nsm);
      const samples = new Array(nsm);
      for (let i = 0; i < nsm; i++) {
        const m = mk[i];
        if (m) samples[i] = st[i] >= 0 ? { marker: MARKERS[m], stackId: st[i], timestamp: ts[i] } : { marker: MARKERS[m], timestamp: ts[i] };
        else samples[i] = st[i] >= 0 ? { stackId: st[i], timestamp: ts[i] } : { timestamp: ts[i] };
      }
      return { frames, resources, samples, stacks };
    },
  };
}
