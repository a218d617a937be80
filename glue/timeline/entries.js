// The entry interfaces: PerformanceEntry, PerformanceMark, PerformanceMeasure, shaped like a
// browser's (accessors and operations on prototypes, enumerable; brand checks; illegal
// constructors; Symbol.toStringTag). Entry values live in JS column chunks that the entry
// objects reference, so an entry stays valid after it is cleared from the buffer; the core
// holds the copies it searches and orders.
//
// Host entries (resource, navigation, paint, Node's function/gc/...) are not ours: the
// PerformanceEntry accessors forward them to the host's own accessors, and `instanceof
// PerformanceEntry` accepts them, so a mixed timeline reads the same way everywhere.
import { failed, failedConstruct, domException, nameInMessage } from '../host/errors.js';
import {
  requireArgs,
  toDOMString,
  toDouble,
  dictionarySource,
  notSerializable,
  webidlShape,
} from '../host/webidl.js';
import { cloneDetail } from './clone.js';
import {
  nativeNow,
  isWindow,
  TIMING_NAMES,
  hasNavigationId,
  currentNavigationId,
} from '../host/host.js';
import { native } from '../host/native.js';

export const INTERNAL = Symbol('perfshim.internal');
const illegal = (what) => new TypeError(`${what}: Illegal invocation`);

const nativeEntryProto = native.PerformanceEntry ? native.PerformanceEntry.prototype : null;
if (nativeEntryProto) notSerializable(native.PerformanceEntry); // the host's entries too
/** A host entry's attribute, read through its own prototype chain (subclasses such as
 *  PerformanceResourceTiming override startTime); anything else is an illegal invocation. */
function forward(attr, obj) {
  if (nativeEntryProto && obj instanceof native.PerformanceEntry && attr in nativeEntryProto)
    return obj[attr];
  throw illegal(`Failed to read the '${attr}' property from 'PerformanceEntry'`);
}

// Entry values live in columns, CHUNK entries to a chunk; an entry object is (chunk, index).
// Memory per buffered mark is a target: an object of two fields (40 B on 64-bit V8) plus a
// double and a name pointer in the columns (and the timeline's pointer to the object), and no
// boxed startTime.
// A chunk outlives the buffer: an entry held after a clear keeps reading its own values.
export const CHUNK_BITS = 12;
export const CHUNK = 1 << CHUNK_BITS;

/** A column of CHUNK unboxed doubles on the JS heap: an array of double elements (8 B each, no
 *  boxes), not a Float64Array, whose 32 KB backing store outside the heap would count as
 *  external memory (V8 collects garbage sooner as it grows) and cost an allocation of its own. */
const doubles = () => new Array(CHUNK).fill(0.5);

/** One chunk of entries of one type: the value columns (startTime, name, duration for
 *  measures; detail and navigationId made when first needed). The entry objects are the
 *  timeline's (a chunk held by an entry does not hold its neighbours). */
export class Chunk {
  constructor(entryType) {
    this.entryType = entryType;
    this.s = doubles();
    this.n = new Array(CHUNK);
    this.d = entryType === 'measure' ? doubles() : null;
    this.x = null; // details (null = every detail is null)
    this.v = hasNavigationId ? new Array(CHUNK) : null; // navigationIds
    this.used = 0; // loose chunks: indexes handed out
  }
}

/** Write an entry's values at index i of chunk c. */
export function place(c, i, name, startTime, duration, detail) {
  c.s[i] = startTime;
  c.n[i] = name;
  if (c.d !== null) c.d[i] = duration;
  if (detail !== null) (c.x || (c.x = new Array(CHUNK)))[i] = detail;
  else if (c.x !== null) c.x[i] = undefined;
  if (c.v !== null) c.v[i] = currentNavigationId();
}

// Entries outside the buffer (constructed by user code, dropped by a full buffer, or cleared
// by name, whose index the buffer reuses) take the next index of their type's loose chunk:
// entry `e` is moved there, or (e === null) a new entry is made there.
const loose = { mark: null, measure: null };
export function looseEntry(e, entryType, name, startTime, duration, detail) {
  let c = loose[entryType];
  if (c === null || c.used === CHUNK) c = loose[entryType] = new Chunk(entryType);
  const i = c.used++;
  place(c, i, name, startTime, duration, detail);
  if (e === null) return newEntry(c, i);
  setPlace(e, c, i);
}

/** Give a buffered entry (about to leave the buffer while its index is reused) values of its
 *  own, in the type's loose chunk. */
export let detach;
const detailAt = (c, i) => {
  const d = c.x === null ? undefined : c.x[i];
  return d === undefined ? null : d;
};

// An entry's place is two private fields, its chunk and index, that each concrete class
// (PerformanceMark, PerformanceMeasure) declares itself: V8 constructs a derived class whose
// base declares private fields about 5x slower (13 ns against 2.5 ns an object, measured), and
// every buffered entry is one. These read and write either class's (set in their static blocks).
let isMark, markChunk, markIndex, setMarkPlace;
let isMeasure, measureChunk, measureIndex, setMeasurePlace;
/** The entry's chunk, or null when `o` (an object) is not one of our entries. */
const chunkOf = (o) => (isMark(o) ? markChunk(o) : isMeasure(o) ? measureChunk(o) : null);
const indexOf = (o) => (isMark(o) ? markIndex(o) : measureIndex(o));
const setPlace = (e, c, i) => (isMark(e) ? setMarkPlace(e, c, i) : setMeasurePlace(e, c, i));
/** The detail of entry `v` of `entryType` (the `detail` getters), else an illegal invocation. */
const entryDetail = (v, iface, entryType) => {
  const c = v !== null && typeof v === 'object' ? chunkOf(v) : null;
  if (c === null || c.entryType !== entryType)
    throw illegal(`Failed to read the 'detail' property from '${iface}'`);
  return detailAt(c, indexOf(v));
};

export class PerformanceEntry {
  constructor(token) {
    if (token !== INTERNAL)
      throw new TypeError(`${failedConstruct('PerformanceEntry')}: Illegal constructor`);
  }

  get name() {
    const c = chunkOf(this);
    return c !== null ? c.n[indexOf(this)] : forward('name', this);
  }
  get entryType() {
    const c = chunkOf(this);
    return c !== null ? c.entryType : forward('entryType', this);
  }
  get startTime() {
    const c = chunkOf(this);
    return c !== null ? c.s[indexOf(this)] : forward('startTime', this);
  }
  get duration() {
    const c = chunkOf(this);
    if (c === null) return forward('duration', this);
    return c.d === null ? 0 : c.d[indexOf(this)];
  }
  get navigationId() {
    const c = chunkOf(this);
    return c !== null ? c.v[indexOf(this)] : forward('navigationId', this);
  }

  toJSON() {
    const c = chunkOf(this);
    if (c === null) {
      if (nativeEntryProto && this instanceof native.PerformanceEntry)
        return nativeEntryProto.toJSON.call(this);
      throw illegal(failed('toJSON', 'PerformanceEntry'));
    }
    const i = indexOf(this);
    const json = {
      name: c.n[i],
      entryType: c.entryType,
      startTime: c.s[i],
      duration: c.d === null ? 0 : c.d[i],
    };
    if (hasNavigationId) json.navigationId = c.v[i];
    json.detail = detailAt(c, i);
    return json;
  }

  /** Node's util.inspect shows the attributes, as it does for its own entries. */
  [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
    const tag = this[Symbol.toStringTag] || 'PerformanceEntry';
    if (chunkOf(this) === null || typeof inspect !== 'function') return tag;
    return `${tag} ${inspect(this.toJSON(), { ...options, depth: options.depth == null ? null : options.depth - 1 })}`;
  }

  static [Symbol.hasInstance](v) {
    if (this !== PerformanceEntry) return Function.prototype[Symbol.hasInstance].call(this, v);
    if (v !== null && typeof v === 'object' && chunkOf(v) !== null) return true;
    return !!native.PerformanceEntry && v instanceof native.PerformanceEntry;
  }

  // detach is defined in a static block of the base class on purpose: as a plain function,
  // mark() took 10-24% more CPU (bench/node.mjs, own processes, one 7-group run).
  static {
    detach = (e) => {
      const c = chunkOf(e),
        i = indexOf(e);
      looseEntry(e, c.entryType, c.n[i], c.s[i], c.d === null ? 0 : c.d[i], detailAt(c, i));
      if (c.v !== null) chunkOf(e).v[indexOf(e)] = c.v[i];
    };
  }
}
if (!hasNavigationId) delete PerformanceEntry.prototype.navigationId;

/** An entry object for index i of chunk c (its values placed there). */
export function newEntry(c, i) {
  return c.d === null
    ? new PerformanceMark(INTERNAL, c, i)
    : new PerformanceMeasure(INTERNAL, c, i);
}

/** The steps of the PerformanceMark constructor after argument conversion (User Timing 3):
 *  returns done(arg, name, startTime, detail). */
export function markSteps(context, name, options, done, arg) {
  const src = dictionarySource(options, context, 'PerformanceMarkOptions');
  // Dictionary members are read in lexicographic order: detail, startTime.
  const rawDetail = src === null ? undefined : src.detail;
  const rawStart = src === null ? undefined : src.startTime;
  const startTime = rawStart === undefined ? undefined : toDouble(rawStart, context, 'startTime');
  if (isWindow && TIMING_NAMES.has(name))
    throw domException(
      'SyntaxError',
      `${context}: '${name}' is part of the PerformanceTiming interface, and cannot be used as a mark name.`,
    );
  if (startTime !== undefined && startTime < 0)
    throw new TypeError(`${context}: '${nameInMessage(name)}' cannot have a negative start time.`);
  const time = startTime === undefined ? nativeNow() : startTime;
  return done(arg, name, time, cloneDetail(rawDetail, context));
}

const placeLoose = (e, name, startTime, detail) =>
  looseEntry(e, 'mark', name, startTime, 0, detail);

export class PerformanceMark extends PerformanceEntry {
  #c;
  #i;

  constructor(markName, markOptions = undefined, index = 0) {
    if (markName === INTERNAL) {
      super(INTERNAL);
      this.#c = markOptions;
      this.#i = index;
      return;
    }
    const context = failedConstruct('PerformanceMark');
    requireArgs(arguments.length, 1, context);
    const name = toDOMString(markName, context);
    super(INTERNAL);
    markSteps(context, name, markOptions, placeLoose, this);
  }

  get detail() {
    return entryDetail(this, 'PerformanceMark', 'mark');
  }

  static {
    isMark = (o) => #c in o;
    markChunk = (o) => o.#c;
    markIndex = (o) => o.#i;
    setMarkPlace = (o, c, i) => {
      o.#c = c;
      o.#i = i;
    };
  }
}

export class PerformanceMeasure extends PerformanceEntry {
  #c;
  #i;

  constructor(token, chunk, index) {
    if (token !== INTERNAL)
      throw new TypeError(`${failedConstruct('PerformanceMeasure')}: Illegal constructor`);
    super(INTERNAL);
    this.#c = chunk;
    this.#i = index;
  }

  get detail() {
    return entryDetail(this, 'PerformanceMeasure', 'measure');
  }

  static {
    isMeasure = (o) => #c in o;
    measureChunk = (o) => o.#c;
    measureIndex = (o) => o.#i;
    setMeasurePlace = (o, c, i) => {
      o.#c = c;
      o.#i = i;
    };
  }
}

webidlShape(PerformanceEntry, 'PerformanceEntry');
webidlShape(PerformanceMark, 'PerformanceMark');
webidlShape(PerformanceMeasure, 'PerformanceMeasure');
// (Not PerformanceMark's: its own is already 1, and redefining it, even to 1, made V8 construct
// marks about 10x slower, measured.)
Object.defineProperty(PerformanceEntry, 'length', { value: 0 });
Object.defineProperty(PerformanceMeasure, 'length', { value: 0 });
