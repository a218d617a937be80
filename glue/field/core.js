// The field core (wasm/perfshim-field.wasm, src/field.h) from JS: encode a visit's upload, decode
// and validate one (every byte hostile: the core refuses it with a reason before anything is
// kept), and merge traces into capped aggregates. Plumbing only: the work is the core's.
// Used by the page client (visits.js, loaded once a view is sampled) and the collector.
import { wasmBytes } from '../../wasm/perfshim-field.wasm.js';
import * as abi from '../host/abi.js';
import { statusError } from '../host/errors.js';
import { encodeInto } from '../host/io.js';
import { coreBytes, instantiateCore } from '../host/loader.js';
import { createTraceCodec } from '../profiler/profiler-trace.js';

/** Why the core refused an upload (PS_FIELD_BAD_*), as the collector reports it. */
export const REASONS = {
  [abi.PS_FIELD_BAD_MAGIC]: 'not a perfshim upload (magic)',
  [abi.PS_FIELD_BAD_TRUNCATED]: 'truncated',
  [abi.PS_FIELD_BAD_VARINT]: 'varint overflow',
  [abi.PS_FIELD_BAD_COUNT]: 'count past the bytes left or a limit',
  [abi.PS_FIELD_BAD_STRING]: `string longer than ${abi.PS_FIELD_MAX_STRING} bytes`,
  [abi.PS_FIELD_BAD_UTF8]: 'string not UTF-8',
  [abi.PS_FIELD_BAD_STRING_ID]: 'string id out of range',
  [abi.PS_FIELD_BAD_RESOURCE_ID]: 'resource id out of range',
  [abi.PS_FIELD_BAD_FRAME_ID]: 'frame id out of range',
  [abi.PS_FIELD_BAD_PARENT]: 'stack parent out of range',
  [abi.PS_FIELD_BAD_DEPTH]: `stack deeper than ${abi.PS_FIELD_MAX_DEPTH} frames`,
  [abi.PS_FIELD_BAD_TIME]: 'time out of range',
  [abi.PS_FIELD_BAD_STACK_ID]: 'sample stack id out of range',
  [abi.PS_FIELD_BAD_MARKER]: 'unknown marker',
  [abi.PS_FIELD_BAD_ENTRY_TYPE]: 'entry neither mark nor measure',
  [abi.PS_FIELD_BAD_LABEL_NAME]: 'label name not [a-zA-Z_][a-zA-Z0-9_]{0,63} or repeated',
  [abi.PS_FIELD_BAD_LABEL_VALUE]: `label value longer than ${abi.PS_FIELD_MAX_LABEL_VALUE} bytes`,
  [abi.PS_FIELD_BAD_TRAILING]: 'bytes after the end',
  [abi.PS_FIELD_BAD_SIZE]: `more than ${abi.PS_FIELD_MAX_BYTES} bytes`,
  [abi.PS_FIELD_BAD_LINE]: 'line or column out of range',
};

const CONTEXT = 'perfshim field';

/** The TypeError for an upload or visit the core refused: `reason` the text, `offset` where. */
function refused(what, offset, kind = 'upload') {
  const e = statusError(
    abi.PS_E_PARSE,
    CONTEXT,
    `bad ${kind}: ${REASONS[what] || what} at ${offset}`,
  );
  e.reason = REASONS[what] || String(what);
  e.offset = offset;
  return e;
}

/** A new field core (PERFSHIM_FIELD_WASM=path in Node selects another build). */
export const createFieldCore = () => instantiateCore(coreBytes('PERFSHIM_FIELD_WASM', wasmBytes));
let shared;
/** The realm's field core, instantiated on first use. */
export const loadFieldCore = () => (shared ||= createFieldCore());

/** The field operations over a field core (default: the realm's). */
export function createField(core = loadFieldCore()) {
  const x = core.x;
  const codec = createTraceCodec(core);
  const check = (status) => core.check(status, CONTEXT);

  /** Strings and f64 records laid out as ps_field_encode reads them. */
  function layout(records) {
    let bytes = new Uint8Array(1024),
      used = 0;
    const rec = [];
    for (const r of records) {
      for (const v of r) {
        if (typeof v !== 'string') {
          rec.push(v);
          continue;
        }
        if (used + v.length * 3 > bytes.length) {
          const grown = new Uint8Array(2 * (used + v.length * 3));
          grown.set(bytes.subarray(0, used));
          bytes = grown;
        }
        const n = encodeInto(v, bytes, used);
        rec.push(used, n);
        used += n;
      }
    }
    const at = core.reserve(rec.length * 8 + used);
    core.f64().set(rec, at >>> 3);
    core.u8().set(bytes.subarray(0, used), at + rec.length * 8);
    return used;
  }

  return {
    core,
    codec,
    /** A new trace in the field core (free it with free()). */
    trace: (maxSamples = 1 << 20) => codec.create(maxSamples),
    free: (h) => codec.free(h),

    /**
     * The upload of trace `h` (Uint8Array): `entries` (marks and measures: {name, entryType,
     * startTime, duration}), `labels` ({name: value}), `interval` (ms), `stride` (keep every
     * stride-th sample). A label the collector would refuse is a TypeError naming it.
     */
    encode(h, { entries = [], labels = {}, interval = 10, stride = 1 } = {}) {
      const list = entries.filter((e) => e.entryType === 'mark' || e.entryType === 'measure');
      const pairs = Object.entries(labels).map(([k, v]) => [String(k), String(v)]);
      const records = [
        ...list.map((e) => [
          String(e.name),
          e.entryType === 'measure' ? 1 : 0,
          +e.startTime,
          +e.duration || 0,
        ]),
        ...pairs,
      ];
      const bytes = layout(records);
      const n = x.ps_field_encode(h, list.length, pairs.length, bytes, stride, interval);
      if (n === abi.PS_E_PARSE) {
        const [what, i] = core.out();
        const label = what === abi.PS_FIELD_BAD_LABEL_NAME || what === abi.PS_FIELD_BAD_LABEL_VALUE;
        throw refused(what, i, label ? `label '${pairs[i][0]}'` : 'visit');
      }
      check(n);
      const ptr = x.ps_blob_ptr();
      const out = core.u8().slice(ptr, ptr + n);
      x.ps_blob_release();
      return out;
    },

    /** Decode `bytes` (an upload, decompressed) into a new trace: {trace, samples, interval,
     *  labels, entries}; a refused upload is a TypeError with `reason` and `offset`. */
    decode(bytes) {
      if (bytes.length > abi.PS_FIELD_MAX_BYTES) throw refused(abi.PS_FIELD_BAD_SIZE, 0);
      const h = codec.create(1 << 20);
      try {
        const at = core.reserve(bytes.length);
        core.u8().set(bytes, at);
        const n = x.ps_field_decode(h, bytes.length);
        if (n === abi.PS_E_PARSE) throw refused(core.out()[0], core.out()[1]);
        check(n);
        const interval = core.out()[0];
        const kv = core.takeStrings(check(x.ps_field_labels()));
        const labels = {};
        for (let i = 0; i < kv.length; i += 2) labels[kv[i]] = kv[i + 1];
        const names = core.takeStrings(check(x.ps_field_entries()));
        const t = x.ps_field_entry_times() >>> 3,
          f64 = core.f64();
        const entries = names.map((name, i) => ({
          name,
          entryType: f64[t + i * 3] ? 'measure' : 'mark',
          startTime: f64[t + i * 3 + 1],
          duration: f64[t + i * 3 + 2],
        }));
        return { trace: h, samples: n, interval, labels, entries };
      } catch (e) {
        codec.free(h);
        throw e;
      }
    },

    /** A new aggregate of at most `maxStacks` distinct stacks. */
    aggregate: (maxStacks = 100000) => check(x.ps_field_agg_new(maxStacks)),
    freeAggregate: (a) => x.ps_field_agg_free(a),
    /** Merge samples `first` to `end` - 1 (default: all) of trace `h` into aggregate `a`, under
     *  its stack `root` (-1: at the top; see root()); the last sample weighs `interval` ms. */
    add: (a, h, interval = 0, { first = 0, end = 0xffffffff, root = -1 } = {}) =>
      check(x.ps_field_agg_add(a, h, interval, first, end, root)),
    /** The root stack of aggregate `a` named `name` (0, "(other)", past the cap). */
    root(a, name) {
      const b = new TextEncoder().encode(name);
      const at = core.reserve(b.length);
      core.u8().set(b, at);
      return check(x.ps_field_agg_root(a, b.length));
    },
    /** The sample times (ms) of trace `h`. */
    sampleTimes(h) {
      const n = codec.info(h).samples;
      const at = x.ps_trace_column(h, abi.PS_COL_SAMPLE_TIME) >>> 3;
      return core.f64().slice(at, at + n);
    },
    /** {stacks, frames, samples, ms, other, bytes} of aggregate `a`. */
    info(a) {
      check(x.ps_field_agg_info(a));
      const o = core.out();
      return { stacks: o[0], frames: o[1], samples: o[2], ms: o[3], other: o[4], bytes: o[5] };
    },
    /** Aggregate `a` as {frames, resources, stacks} (ProfilerTrace shapes) plus `count` and
     *  `time` (ms) per stack. */
    read(a) {
      const { frames, resources, stacks } = codec.read(check(x.ps_field_agg_trace(a)));
      const n = stacks.length,
        f64 = core.f64();
      const c = x.ps_field_agg_column(a, abi.PS_FIELD_COL_COUNT) >>> 3;
      const t = x.ps_field_agg_column(a, abi.PS_FIELD_COL_TIME) >>> 3;
      return {
        frames,
        resources,
        stacks,
        count: f64.slice(c, c + n),
        time: f64.slice(t, t + n),
        info: this.info(a),
      };
    },
  };
}
