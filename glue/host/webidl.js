// WebIDL argument conversion, as far as these APIs need it (the one module for it): DOMString,
// double (finite), unsigned long, dictionaries, unions of DOMString and double, and argument counts;
// and the data properties of operations and interface objects.

export function requireArgs(n, needed, context) {
  if (n < needed)
    throw new TypeError(
      `${context}: ${needed} argument${needed > 1 ? 's' : ''} required, but only ${n} present.`,
    );
}

/** WebIDL DOMString: ToString, which throws a TypeError for symbols. */
export function toDOMString(v, context) {
  if (typeof v === 'string') return v;
  if (typeof v === 'symbol')
    throw new TypeError(`${context}: Cannot convert a Symbol value to a string`);
  return String(v);
}

/** WebIDL double (restricted): ToNumber (a TypeError for BigInt and Symbol, also from an
 *  object's valueOf; Number() would convert a BigInt), then NaN and infinities are a TypeError. */
export function toDouble(v, context, what) {
  if (typeof v === 'bigint')
    throw new TypeError(`${context}: Cannot convert a BigInt value to a number`);
  const n = typeof v === 'number' ? v : +v;
  if (!Number.isFinite(n))
    throw new TypeError(
      `${context}: The provided double value${what ? ` for ${what}` : ''} is non-finite.`,
    );
  return n;
}

/** WebIDL unsigned long (no [EnforceRange]): ToNumber, then ToUint32. */
export const toUnsignedLong = (v) => +v >>> 0;

/** WebIDL (DOMString or double): numbers become doubles, everything else a string. */
export function toStringOrDouble(v, context, what) {
  if (typeof v === 'number') return toDouble(v, context, what);
  return toDOMString(v, context);
}

/** The value a dictionary is read from, or a TypeError when it cannot be one. */
export function dictionarySource(v, context, dictName) {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object' || typeof v === 'function') return v;
  throw new TypeError(`${context}: The provided value is not of type '${dictName}'.`);
}

export const isObject = (v) => v !== null && (typeof v === 'object' || typeof v === 'function');

/** Define a data property as WebIDL does an operation (enumerable) or an interface object on the
 *  global (not enumerable): writable and configurable. */
export function defineValue(obj, key, value, enumerable) {
  Object.defineProperty(obj, key, { value, writable: true, enumerable, configurable: true });
}

// The prototypes of the interfaces whose instances are platform objects (notSerializable).
const PLATFORM = new WeakSet();

/** The instances of interface `Ctor` (and of its subclasses) are platform objects, which
 *  StructuredSerialize refuses (none of perfshim's interfaces is [Serializable]). */
export const notSerializable = (Ctor) => PLATFORM.add(Ctor.prototype);

/** Whether `proto` is the prototype of an interface notSerializable() named. */
export const isPlatformPrototype = (proto) => PLATFORM.has(proto);

/** WebIDL shape: members enumerable, a toStringTag per interface, and the interface's name
 *  (a bundle that minifies identifiers renames the class); its instances are platform objects,
 *  which a detail cannot hold (none of these interfaces is [Serializable]). */
export function webidlShape(Ctor, tag) {
  notSerializable(Ctor);
  Object.defineProperty(Ctor, 'name', { value: tag });
  const proto = Ctor.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor') continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    d.enumerable = true;
    Object.defineProperty(proto, key, d);
  }
  Object.defineProperty(proto, Symbol.toStringTag, { value: tag, configurable: true });
}
