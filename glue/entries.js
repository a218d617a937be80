// The entry interfaces: PerformanceEntry, PerformanceMark, PerformanceMeasure, shaped like a
// browser's (accessors and operations on prototypes, enumerable; brand checks; illegal
// constructors; Symbol.toStringTag). Entry objects carry their own values so they stay valid
// after they are cleared from the buffer; the core holds the copies it searches.
//
// Host entries (resource, navigation, paint, Node's function/gc/...) are not ours: the
// PerformanceEntry accessors forward them to the host's own accessors, and `instanceof
// PerformanceEntry` accepts them, so a mixed timeline reads the same way everywhere.
import { failed, failedConstruct, domException, nameInMessage } from './errors.js';
import { requireArgs, toDOMString, toDouble, dictionarySource } from './webidl.js';
import { cloneDetail } from './clone.js';
import {
  native,
  nativeNow,
  isWindow,
  TIMING_NAMES,
  hasNavigationId,
  currentNavigationId,
} from './host.js';

const INTERNAL = Symbol('perfshim.internal');
const illegal = (what) => new TypeError(`${what}: Illegal invocation`);

// Values for the next internal construction (set just before `new`, read by the constructor).
const pending = { name: '', startTime: 0, duration: 0, detail: null };

const nativeEntryProto = native.PerformanceEntry ? native.PerformanceEntry.prototype : null;
/** A host entry's attribute, read through its own prototype chain (subclasses such as
 *  PerformanceResourceTiming override startTime); anything else is an illegal invocation. */
function forward(attr, obj) {
  if (nativeEntryProto && obj instanceof native.PerformanceEntry && attr in nativeEntryProto)
    return obj[attr];
  throw illegal(`Failed to read the '${attr}' property from 'PerformanceEntry'`);
}

let entryDetail;

// entryType and navigationId live in one shared object per (type, navigation): one field
// per entry instead of two (memory per buffered mark is a target).
const metas = new Map();
let lastMeta = { entryType: '', navigationId: undefined };
function metaFor(entryType) {
  const navigationId = hasNavigationId ? currentNavigationId() : undefined;
  if (lastMeta.entryType === entryType && lastMeta.navigationId === navigationId) return lastMeta;
  let m = metas.get(entryType);
  if (!m || m.navigationId !== navigationId) {
    m = Object.freeze({ entryType, navigationId });
    metas.set(entryType, m);
  }
  lastMeta = m;
  return m;
}

// A mark's duration is always 0: only measures carry a duration field (memory per buffered
// mark is a target; each field is 8 bytes).
let measureDuration;

export class PerformanceEntry {
  #name;
  #meta;
  #startTime;
  #detail;

  constructor(token) {
    if (token !== INTERNAL)
      throw new TypeError(`${failedConstruct('PerformanceEntry')}: Illegal constructor`);
    this.#name = pending.name;
    this.#meta = metaFor(pending.entryType);
    this.#startTime = pending.startTime;
    this.#detail = pending.detail;
  }

  get name() {
    return #name in this ? this.#name : forward('name', this);
  }
  get entryType() {
    return #meta in this ? this.#meta.entryType : forward('entryType', this);
  }
  get startTime() {
    return #startTime in this ? this.#startTime : forward('startTime', this);
  }
  get duration() {
    if (!(#meta in this)) return forward('duration', this);
    return this.#meta.entryType === 'measure' ? measureDuration(this) : 0;
  }
  get navigationId() {
    return #meta in this ? this.#meta.navigationId : forward('navigationId', this);
  }

  toJSON() {
    if (!(#name in this)) {
      if (nativeEntryProto && this instanceof native.PerformanceEntry)
        return nativeEntryProto.toJSON.call(this);
      throw illegal(failed('toJSON', 'PerformanceEntry'));
    }
    const json = {
      name: this.#name,
      entryType: this.#meta.entryType,
      startTime: this.#startTime,
      duration: this.#meta.entryType === 'measure' ? measureDuration(this) : 0,
    };
    if (hasNavigationId) json.navigationId = this.#meta.navigationId;
    json.detail = this.#detail;
    return json;
  }

  /** Node's util.inspect shows the attributes, as it does for its own entries. */
  [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
    const tag = this[Symbol.toStringTag] || 'PerformanceEntry';
    if (!(#name in this) || typeof inspect !== 'function') return tag;
    return `${tag} ${inspect(this.toJSON(), { ...options, depth: options.depth == null ? null : options.depth - 1 })}`;
  }

  static [Symbol.hasInstance](v) {
    if (this !== PerformanceEntry) return Function.prototype[Symbol.hasInstance].call(this, v);
    if (v !== null && typeof v === 'object' && #name in v) return true;
    return !!native.PerformanceEntry && v instanceof native.PerformanceEntry;
  }

  static {
    entryDetail = (v, iface, entryType) => {
      if (
        v === null ||
        typeof v !== 'object' ||
        !(#detail in v) ||
        v.#meta.entryType !== entryType
      ) {
        throw illegal(`Failed to read the 'detail' property from '${iface}'`);
      }
      return v.#detail;
    };
  }
}
if (!hasNavigationId) delete PerformanceEntry.prototype.navigationId;

/** Create an entry object without argument checks (the caller has done them). */
export function makeEntry(Ctor, entryType, name, startTime, duration, detail) {
  pending.entryType = entryType;
  pending.name = name;
  pending.startTime = startTime;
  pending.duration = duration;
  pending.detail = detail;
  return new Ctor(INTERNAL);
}

/** The steps of the PerformanceMark constructor after argument conversion (User Timing 3). */
function markSteps(context, name, options) {
  const src = dictionarySource(options, context, 'PerformanceMarkOptions');
  // Dictionary members are read in lexicographic order: detail, startTime.
  const rawDetail = src === null ? undefined : src.detail;
  const rawStart = src === null ? undefined : src.startTime;
  const startTime = rawStart === undefined ? undefined : toDouble(rawStart, context, 'startTime');
  if (isWindow && TIMING_NAMES.has(name)) {
    throw domException(
      'SyntaxError',
      `${context}: '${name}' is part of the PerformanceTiming interface, and cannot be used as a mark name.`,
    );
  }
  if (startTime !== undefined && startTime < 0) {
    throw new TypeError(`${context}: '${nameInMessage(name)}' cannot have a negative start time.`);
  }
  const time = startTime === undefined ? nativeNow() : startTime;
  const detail = cloneDetail(rawDetail, context);
  // Set last: the steps above run user code (getters), which may itself create entries.
  pending.startTime = time;
  pending.detail = detail;
  pending.name = name;
  pending.entryType = 'mark';
  pending.duration = 0;
}

export class PerformanceMark extends PerformanceEntry {
  constructor(markName, markOptions = undefined) {
    if (markName !== INTERNAL) {
      const context = failedConstruct('PerformanceMark');
      requireArgs(arguments.length, 1, context);
      markSteps(context, toDOMString(markName, context), markOptions);
    }
    super(INTERNAL);
  }

  get detail() {
    return entryDetail(this, 'PerformanceMark', 'mark');
  }
}

export class PerformanceMeasure extends PerformanceEntry {
  #duration;

  constructor(token) {
    if (token !== INTERNAL)
      throw new TypeError(`${failedConstruct('PerformanceMeasure')}: Illegal constructor`);
    super(INTERNAL);
    this.#duration = pending.duration;
  }

  static {
    measureDuration = (v) => v.#duration;
  }

  get detail() {
    return entryDetail(this, 'PerformanceMeasure', 'measure');
  }
}

/** WebIDL shape: members enumerable, a toStringTag per interface. */
export function webidlShape(Ctor, tag) {
  const proto = Ctor.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor') continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    d.enumerable = true;
    Object.defineProperty(proto, key, d);
  }
  Object.defineProperty(proto, Symbol.toStringTag, { value: tag, configurable: true });
}
webidlShape(PerformanceEntry, 'PerformanceEntry');
webidlShape(PerformanceMark, 'PerformanceMark');
webidlShape(PerformanceMeasure, 'PerformanceMeasure');
Object.defineProperty(PerformanceEntry, 'length', { value: 0 });
Object.defineProperty(PerformanceMeasure, 'length', { value: 0 });

/** PerformanceMark constructor steps plus construction, for performance.mark(). */
export function createMark(context, name, options) {
  markSteps(context, name, options);
  return new PerformanceMark(INTERNAL);
}
