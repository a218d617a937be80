// `detail` values: StructuredSerialize + StructuredDeserialize into this realm, as the User
// Timing spec says. Plain objects and dense arrays are copied here (fast; the common case for
// `detail`); every other object goes through the host's structuredClone, and identity (shared
// references, cycles) is kept through a map of what has been copied.
// Known edge: a Proxy whose prototype is Object.prototype is copied as a plain object, where
// the host would throw a DataCloneError.
import { domException } from './errors.js';

const OBJECT_PROTO = Object.prototype;
const ARRAY_PROTO = Array.prototype;
const hostClone = globalThis.structuredClone;

function hostCopy(v, context) {
  if (typeof hostClone !== 'function') {
    throw domException('DataCloneError', `${context}: this runtime has no structuredClone for ${Object.prototype.toString.call(v)}`);
  }
  try {
    return hostClone(v);
  } catch (e) {
    if (e && e.name === 'DataCloneError') throw domException('DataCloneError', `${context}: ${e.message}`);
    throw e;
  }
}

function copy(v, seen, context) {
  if (v === null) return v;
  const t = typeof v;
  if (t === 'function' || t === 'symbol') return hostCopy(v, context); // throws DataCloneError
  if (t !== 'object') return v;
  const done = seen.get(v);
  if (done !== undefined) return done;
  const proto = Object.getPrototypeOf(v);
  let out;
  if (proto === OBJECT_PROTO) {
    out = {};
    seen.set(v, out);
    for (const k of Object.keys(v)) out[k] = copy(v[k], seen, context);
  } else if (proto === ARRAY_PROTO && Array.isArray(v) && Object.keys(v).length === v.length) {
    out = new Array(v.length);
    seen.set(v, out);
    for (let i = 0; i < v.length; i++) out[i] = copy(v[i], seen, context);
  } else {
    out = hostCopy(v, context);
    seen.set(v, out);
  }
  return out;
}

/** The stored `detail` of a mark or measure: null when absent, else a structured clone. */
export function cloneDetail(v, context) {
  if (v === undefined || v === null) return null;
  const t = typeof v;
  if (t !== 'object' && t !== 'function' && t !== 'symbol') return v;
  if (t === 'object' && Object.getPrototypeOf(v) === OBJECT_PROTO) {
    // Flat plain objects (the usual detail) need no identity map.
    const keys = Object.keys(v);
    const out = {};
    for (let i = 0; i < keys.length; i++) {
      const x = v[keys[i]];
      if (x !== null && (typeof x === 'object' || typeof x === 'function' || typeof x === 'symbol')) {
        const seen = new Map([[v, out]]);
        out[keys[i]] = copy(x, seen, context);
        for (let j = i + 1; j < keys.length; j++) out[keys[j]] = copy(v[keys[j]], seen, context);
        break;
      }
      out[keys[i]] = x;
    }
    return out;
  }
  return copy(v, new Map(), context);
}
