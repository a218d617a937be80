// `detail` values: StructuredSerialize + StructuredDeserialize into this realm, as the User
// Timing spec says. Trees of plain objects, dense arrays and primitives (the usual `detail`)
// are copied here, much faster than the host's structuredClone; as soon as anything else turns
// up, the whole value goes through the host's structuredClone instead, so identity (shared
// references, cycles) and every other type keep the host's exact semantics.
// Platform objects (instances of the interfaces perfshim implements, and the host's
// PerformanceEntry) are not [Serializable]: met anywhere in the value, they are a
// DataCloneError, as in Chromium (a host's structuredClone would copy our JS objects as {}).
// Known edges: getters of plain objects met before that point run twice (read again by the
// host's clone); a Proxy whose target is a plain object is copied as one (the host would throw
// a DataCloneError); a platform object that only an own getter returns is not found, nor one
// made by Object.create(SomeInterface.prototype) told from a real one (both rare).
import { domException } from '../host/errors.js';
import { isPlatformPrototype } from '../host/webidl.js';

const OBJECT_PROTO = Object.prototype;
const ARRAY_PROTO = Array.prototype;
const hostClone = globalThis.structuredClone;
const hasOwn = Object.hasOwn || ((o, k) => Object.prototype.hasOwnProperty.call(o, k));
const NOT_PLAIN = Symbol('not plain');
const MAX_NODES = 256;

/** The DataCloneError for a platform object in `v` where the host's serializer would meet it
 *  (own enumerable data properties, Map and Set members), before the host copies `v`. Each
 *  object once, without recursion: a Set's iteration reaches members added while it runs. */
function refusePlatform(v, context) {
  const seen = new Set([v]);
  const add = (x) => x !== null && typeof x === 'object' && seen.add(x);
  for (const o of seen) {
    for (let p = o; (p = Object.getPrototypeOf(p)); )
      if (isPlatformPrototype(p))
        throw domException(
          'DataCloneError',
          `${context}: ${o[Symbol.toStringTag]} object could not be cloned.`,
        );
    if (ArrayBuffer.isView(o)) continue;
    if (o instanceof Map || o instanceof Set)
      o.forEach((x, k) => {
        add(k);
        add(x);
      });
    for (const d of Object.values(Object.getOwnPropertyDescriptors(o)))
      if (d.enumerable) add(d.value);
  }
}

function hostCopy(v, context) {
  if (typeof v === 'object') refusePlatform(v, context);
  if (typeof hostClone !== 'function')
    throw domException(
      'DataCloneError',
      `${context}: this runtime has no structuredClone for ${Object.prototype.toString.call(v)}`,
    );
  try {
    return hostClone(v);
  } catch (e) {
    if (e && e.name === 'DataCloneError')
      throw domException('DataCloneError', `${context}: ${e.message}`);
    throw e;
  }
}

// A member's copy, or NOT_PLAIN. `walk.seen` (made at the first nested object, so a flat object,
// the commonest detail, needs no bookkeeping) guards against cycles and shared references (both
// left to the host), `walk.left` against very large values.
function copyMember(x, walk) {
  if (x === null) return x;
  const t = typeof x;
  if (t === 'function' || t === 'symbol') throw NOT_PLAIN;
  if (t !== 'object') return x;
  const seen = walk.seen || (walk.seen = new Set([walk.root]));
  if (seen.has(x) || --walk.left < 0) throw NOT_PLAIN;
  seen.add(x);
  return copyPlain(x, walk);
}

function copyPlain(v, walk) {
  const proto = Object.getPrototypeOf(v);
  if (proto === OBJECT_PROTO) {
    // for-in walks V8's enum cache without allocating a key array; own keys only, in the same
    // order as Object.keys (for-in lists own keys first, and inherited ones are skipped).
    const out = {};
    for (const k in v) {
      if (!hasOwn(v, k)) continue;
      // An own "__proto__" would hit the setter on assignment: the host keeps it as data.
      if (k === '__proto__') throw NOT_PLAIN;
      out[k] = copyMember(v[k], walk);
    }
    return out;
  }
  if (proto === ARRAY_PROTO && Array.isArray(v) && Object.keys(v).length === v.length) {
    // Dense and nothing but indexes: every index present (extra named keys could otherwise
    // make up for holes in the count).
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      if (!hasOwn(v, i)) throw NOT_PLAIN;
      out[i] = copyMember(v[i], walk);
    }
    return out;
  }
  throw NOT_PLAIN;
}

/** The stored `detail` of a mark or measure: null when absent, else a structured clone. */
export function cloneDetail(v, context) {
  if (v === undefined || v === null) return null;
  const t = typeof v;
  if (t !== 'object' && t !== 'function' && t !== 'symbol') return v;
  if (t === 'object') {
    try {
      return copyPlain(v, { root: v, seen: null, left: MAX_NODES - 1 });
    } catch (e) {
      if (e !== NOT_PLAIN) throw e;
    }
  }
  return hostCopy(v, context);
}
