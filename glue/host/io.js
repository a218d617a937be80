// The io layer: the one way data crosses between the glue and the core (src/exchange.c is its C
// half). `createIo(exports)` wraps an instance's exports with the status check, the u32 view,
// the out registers and the result buffer; `withTransfers(io)` adds the exchange buffer, the
// other views, strings, lists and blobs (the timeline glue uses none of them, and the
// timeline-only bundle leaves them out). In all:
//   strings  in: putString (WTF-8 into the exchange buffer), encodeInto (into a reserved region);
//            out: takeString / takeStrings / takeJSON (WTF-8), one codec both ways, so
//            every JS string (lone surrogates and a leading U+FEFF included) round-trips;
//   arrays   in: reserve + the whole-memory views; putU32 for a list;
//            out: the result buffer (`results()` is its first index in u32()), f64 registers
//            (out()), columns read through the whole-memory views at ptr >> shift;
//   blobs    out: {ptr, len} from ps_blob_ptr/len, released with ps_blob_release (take*);
//   status   check(status, context): one status -> exception table (errors.js).
// Views over the memory die when it grows; each accessor re-derives its view lazily (a detached
// view has length 0), so callers take a view after their last call into the core.

import { PS_E_NOMEM, PS_EXCHANGE_MAX } from './abi.js';
import { statusError } from './errors.js';

// The decoders, made on first use (loading perfshim makes none: a page that never profiles
// does not pay for them).
let decoders = null;
const decoder = () =>
  decoders ||
  (decoders = {
    utf8: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }),
    loose: new TextDecoder('utf-8', { ignoreBOM: true }),
    latin1: new TextDecoder('latin1'),
  });
const NON_ASCII = /[\u0080-\uffff]/;

/** The string of WTF-8 bytes b[start, end). Valid UTF-8 (the common case) is decoded natively;
 *  otherwise the 3-byte forms of lone surrogates (ED A0..BF xx) become their code units and the
 *  pieces between them are UTF-8 (bytes that are not become U+FFFD, as the Encoding Standard
 *  decodes). */
export function decode(b, start, end) {
  const { utf8, loose } = decoder();
  try {
    return utf8.decode(b.subarray(start, end));
  } catch {}
  let s = '';
  let from = start;
  for (let i = start; i + 2 < end; i++) {
    if (b[i] === 0xed && b[i + 1] >= 0xa0 && b[i + 1] < 0xc0 && (b[i + 2] & 0xc0) === 0x80) {
      s += loose.decode(b.subarray(from, i));
      s += String.fromCharCode(0xd000 | ((b[i + 1] & 63) << 6) | (b[i + 2] & 63));
      i += 2;
      from = i + 1;
    }
  }
  return s + loose.decode(b.subarray(from, end));
}

/** Write `s` as WTF-8 into `b` at `at` (room for 3 bytes per code unit); returns the byte count.
 *  codePointAt gives a pair's code point and a lone surrogate's own unit: exactly WTF-8's input. */
export function encodeInto(s, b, at) {
  let j = at;
  for (let i = 0; i < s.length; i++) {
    const c = s.codePointAt(i);
    if (c < 0x80) {
      b[j++] = c;
    } else if (c < 0x800) {
      b[j++] = 0xc0 | (c >> 6);
      b[j++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      b[j++] = 0xe0 | (c >> 12);
      b[j++] = 0x80 | ((c >> 6) & 63);
      b[j++] = 0x80 | (c & 63);
    } else {
      b[j++] = 0xf0 | (c >> 18);
      b[j++] = 0x80 | ((c >> 12) & 63);
      b[j++] = 0x80 | ((c >> 6) & 63);
      b[j++] = 0x80 | (c & 63);
      i++;
    }
  }
  return j - at;
}

/** A whole-memory view of `memory` as `Type` (index = address >> shift), cached and re-derived
 *  after the memory grows (a detached view has length 0). */
function view(memory, Type) {
  let v = new Type(0);
  return () => (v.length ? v : (v = new Type(memory.buffer)));
}

/** The io layer over one instance's exports (see the file header). */
export function createIo(x) {
  let out = new Float64Array(0);
  return {
    x,
    memory: x.memory,

    /** Throw the exception for a negative status (context: "Failed to execute ..."); else return it. */
    check(status, context) {
      if (status < 0) throw statusError(status, context);
      return status;
    },

    u32: view(x.memory, Uint32Array),
    /** The eight f64 out registers. */
    out() {
      return out.length ? out : (out = new Float64Array(x.memory.buffer, x.ps_out_ptr(), 8));
    },
    /** The index in u32() of the first u32 result of the last call. */
    results() {
      return x.ps_result_ptr() >>> 2;
    },
  };
}

/** Add the transfers to an io layer (once; returns it): the exchange buffer and the other
 *  whole-memory views, strings, lists and blobs. */
export function withTransfers(io) {
  if (io.takeString) return io;
  const x = io.x;
  return Object.assign(io, {
    /** The address of at least `bytes` bytes of exchange buffer (RangeError when out of memory
     *  or past PS_EXCHANGE_MAX: a count passed to the core as a u32 must not wrap at 2^32;
     *  callers that take user input check its size first and say what is too large). */
    reserve(bytes) {
      if (!(bytes <= PS_EXCHANGE_MAX)) throw statusError(PS_E_NOMEM, 'perfshim');
      const ptr = x.ps_exchange_reserve(bytes || 1);
      if (!ptr) throw statusError(PS_E_NOMEM, 'perfshim');
      return ptr;
    },

    u8: view(x.memory, Uint8Array),
    i32: view(x.memory, Int32Array),
    f64: view(x.memory, Float64Array),

    /** Write `s` at the start of the exchange buffer as WTF-8; returns its byte length. */
    putString(s) {
      const ptr = io.reserve(s.length * 3);
      return encodeInto(s, io.u8(), ptr);
    },
    /** Write a list of integers at the start of the exchange buffer as u32 words. */
    putU32(list) {
      const at = io.reserve(list.length * 4) >>> 2;
      io.u32().set(list, at);
      return list.length;
    },

    /** The blob of the last call as a string, then released. */
    takeString() {
      const ptr = x.ps_blob_ptr();
      try {
        return decode(io.u8(), ptr, ptr + x.ps_blob_len());
      } finally {
        x.ps_blob_release();
      }
    },
    /** The blob of the last call as a parsed JSON document, then released. */
    takeJSON() {
      return JSON.parse(io.takeString());
    },
    /** `n` strings concatenated in the blob, their byte lengths in the result buffer; the blob
     *  is released. One native decode when the blob is ASCII (byte offsets = string offsets). */
    takeStrings(n) {
      const b = io.u8(),
        w = io.u32();
      const ptr = x.ps_blob_ptr(),
        len = x.ps_blob_len(),
        lens = io.results();
      const list = new Array(n);
      try {
        const all = len ? decoder().latin1.decode(b.subarray(ptr, ptr + len)) : '';
        const ascii = !NON_ASCII.test(all);
        for (let i = 0, at = 0; i < n; i++) {
          const l = w[lens + i];
          list[i] = ascii ? all.slice(at, at + l) : decode(b, ptr + at, ptr + at + l);
          at += l;
        }
      } finally {
        x.ps_blob_release();
      }
      return list;
    },
  });
}
