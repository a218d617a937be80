// The Performance methods perfshim provides (User Timing 3, Performance Timeline 2), and the
// realm that ties them to one core: `createRealm(core)` returns the ponyfill objects. The same
// method functions are what `install()` puts on the host's Performance.prototype.
import { failed, statusError, domException, nameInMessage } from '../host/errors.js';
import {
  PS_E_LIMIT,
  PS_E_HOST_ARG,
  PS_E_SYNTAX,
  PS_TYPE_MARK as MARK,
  PS_TYPE_MEASURE as MEASURE,
  PS_ARG_ABSENT as ABSENT,
  PS_ARG_TIME as TIME,
  PS_ARG_MARK as NAMED,
  PS_ARG_HOST_ERROR as HOST_ERROR,
} from '../host/abi.js';
import {
  requireArgs,
  toDOMString,
  toDouble,
  toStringOrDouble,
  isObject,
  defineValue,
  webidlShape,
} from '../host/webidl.js';
import { cloneDetail } from './clone.js';
import { PerformanceEntry, PerformanceMark, PerformanceMeasure, markSteps } from './entries.js';
import { Timeline, typeIndex, entryQueries } from './timeline.js';
import { createObserverClasses } from './observer.js';
import {
  nativeNow,
  nativePerformance,
  timeOrigin,
  isWindow,
  TIMING_NAMES,
  isHostPerformance,
  adoptHostPerformance,
} from '../host/host.js';
import { native } from '../host/native.js';

const OPS = 'mark measure clearMarks clearMeasures getEntries getEntriesByType getEntriesByName';
const CTX = Object.fromEntries(OPS.split(' ').map((op) => [op, failed(op, 'Performance')]));

export function createRealm(core, { host = true, measureMemory = null } = {}) {
  const timeline = new Timeline(core, { host });
  const { PerformanceObserver, PerformanceObserverEntryList } = createObserverClasses(timeline);
  // Host observers (the host's own PerformanceObserver class, held by code that took it before
  // install, e.g. from 'node:perf_hooks') watching mark/measure: counted by install.js.
  const hostWatchers = { mark: 0, measure: 0 };

  /** The host's clearMarks or clearMeasures (type MARK or MEASURE) of `name` (undefined: all). */
  function hostClear(type, name) {
    try {
      (type === MARK ? native.clearMarks : native.clearMeasures).call(nativePerformance, name);
    } catch {
      /* nothing to clear */
    }
  }

  /** Make the host create (and queue) its own copy of an entry; with `clear`, clear it from the
   *  host's buffer again (our timeline is the one that keeps entries). */
  function hostCopy(type, entry, clear) {
    const { name, startTime, duration, detail } = entry;
    try {
      if (type === MARK) native.mark.call(nativePerformance, name, { startTime, detail });
      else native.measure.call(nativePerformance, name, { start: startTime, duration, detail });
    } catch {
      return; // a host that cannot represent the entry (e.g. a negative duration) misses it
    }
    if (clear) hostClear(type, name);
  }

  /** Run `fn` while the host's buffer holds copies of our entries of `type` ('mark' or
   *  'measure'): a host observer's observe({type, buffered: true}) then sees them. */
  function withHostCopies(type, fn) {
    const t = typeIndex(type);
    for (const e of timeline.owned(t, null)) hostCopy(t, e, false);
    try {
      return fn();
    } finally {
      hostClear(t, undefined);
    }
  }

  // The objects the methods accept as `this`: our ponyfill performance and, once install() has
  // put methods on the host's Performance (acceptHost()), any genuine host Performance of the
  // realm (a brand check: Firefox and WebKit give the page that replaces an iframe's initial
  // about:blank a new one). Identity first on the hot path; a new host object that is the
  // global's performance becomes the host's (clock, entries).
  let hostAccepted = false;
  function isReceiver(o) {
    if (o === performance || (hostAccepted && o === nativePerformance)) return true;
    if (!hostAccepted || !isHostPerformance(o)) return false;
    if (o === globalThis.performance) adoptHostPerformance(o);
    return true;
  }

  /** The brand check of a method (`context`: its messages' CTX entry); returns the context. */
  function check(self, context) {
    if (!isReceiver(self)) throw new TypeError(`${context}: Illegal invocation`);
    return context;
  }

  // A time argument of measure(), after conversion: absent, a number (a timestamp), a string
  // (a mark name) or, for a PerformanceTiming attribute name that cannot be read, the error to
  // throw. The core takes it as a kind and a value (the timestamp, the name's id or -1 for a
  // name never used, else 0).
  function argKind(a) {
    if (a === undefined) return ABSENT;
    if (typeof a === 'number') return TIME;
    return typeof a === 'string' ? NAMED : HOST_ERROR;
  }
  const argValue = (a) =>
    typeof a === 'number' ? a : typeof a === 'string' ? (timeline.names.get(a) ?? -1) : 0;

  /** User Timing 3 §convert a name to a timestamp (PerformanceTiming attribute names): the
   *  timestamp, or the error to throw; any other name is returned as it is. */
  function timingArg(name, context) {
    if (typeof name !== 'string' || !TIMING_NAMES.has(name)) return name;
    const timing = isWindow && nativePerformance ? nativePerformance.timing : undefined;
    if (!isWindow || !timing)
      return new TypeError(
        `${context}: '${name}' is a PerformanceTiming attribute and can only be used in a Window.`,
      );
    if (name === 'navigationStart') return 0;
    const end = timing[name];
    if (end === 0)
      return domException(
        'InvalidAccessError',
        `${context}: '${name}' is empty: either the event hasn't happened yet, or it would provide cross-origin timing information.`,
      );
    return end - timing.navigationStart;
  }

  const addMark = (context, name, startTime, detail) =>
    timeline.add(MARK, name, startTime, 0, detail, context);

  const methods = {
    mark(markName, markOptions = undefined) {
      const context = check(this, CTX.mark);
      requireArgs(arguments.length, 1, context);
      const name = toDOMString(markName, context);
      const entry = markSteps(context, name, markOptions, addMark, context);
      timeline.queue(entry, MARK);
      if (hostWatchers.mark) hostCopy(MARK, entry, true);
      return entry;
    },

    measure(measureName, startOrMeasureOptions = undefined, endMark = undefined) {
      const context = check(this, CTX.measure);
      requireArgs(arguments.length, 1, context);
      const name = toDOMString(measureName, context);
      let hasOptions = false,
        rawDetail;
      let start, duration, end; // converted values (string or number), undefined when absent
      const v = startOrMeasureOptions;
      if (isObject(v)) {
        // PerformanceMeasureOptions members in lexicographic order: detail, duration, end, start.
        rawDetail = v.detail;
        const d = v.duration;
        if (d !== undefined) duration = toDouble(d, context, 'duration');
        const e = v.end;
        if (e !== undefined) end = toStringOrDouble(e, context, 'end');
        const st = v.start;
        if (st !== undefined) start = toStringOrDouble(st, context, 'start');
        hasOptions =
          rawDetail !== undefined || d !== undefined || e !== undefined || st !== undefined;
      } else if (v !== undefined && v !== null) {
        start = toDOMString(v, context);
      }
      // endMark is converted even where the options make it an error (the core's check).
      const endName = endMark === undefined ? undefined : toDOMString(endMark, context);
      if (!hasOptions && endName !== undefined) end = endName;
      // Only now, with every argument converted, are mark names looked up. Without a detail to
      // clone between deciding the times and buffering, the core does both in one call.
      const s = timingArg(start, context),
        e = timingArg(end, context);
      const buffer = rawDetail === undefined || rawDetail === null ? timeline.intern(name) + 1 : 0;
      // now() is read only when the algorithm takes the end time from it.
      const now = e === undefined && (s === undefined || duration === undefined) ? nativeNow() : 0;
      const st = core.x.ps_usertiming_measure(
        hasOptions ? 1 : 0,
        endName === undefined ? 0 : 1,
        argKind(s),
        argValue(s),
        argKind(duration),
        duration ?? 0,
        argKind(e),
        argValue(e),
        now,
        buffer,
      );
      const o = core.out();
      if (st < 0 && st !== PS_E_LIMIT) {
        if (st === PS_E_HOST_ARG) throw o[2] === 0 ? s : e;
        const missing = o[2] === 0 ? start : end; // out[2]: the argument that failed
        const message =
          st === PS_E_SYNTAX && `The mark '${nameInMessage(missing)}' does not exist.`;
        throw statusError(st, context, message);
      }
      const entry = buffer
        ? timeline.entry(MEASURE, st, name, o[0], o[1], null, context)
        : timeline.add(MEASURE, name, o[0], o[1], cloneDetail(rawDetail, context), context);
      timeline.queue(entry, MEASURE);
      if (hostWatchers.measure) hostCopy(MEASURE, entry, true);
      return entry;
    },

    clearMarks(markName = undefined) {
      const context = check(this, CTX.clearMarks);
      timeline.clear(MARK, markName === undefined ? null : toDOMString(markName, context));
    },

    clearMeasures(measureName = undefined) {
      const context = check(this, CTX.clearMeasures);
      timeline.clear(MEASURE, measureName === undefined ? null : toDOMString(measureName, context));
    },

    ...entryQueries(
      (self, op) => check(self, CTX[op]),
      (_self, name, type) => timeline.filter(name, type),
    ),
  };

  // Measure Memory (the full entry passes its factory; the timeline-only build has none): the
  // same function under the current name and the older draft's.
  if (measureMemory) {
    const measureUserAgentSpecificMemory = measureMemory(core, { brand: isReceiver });
    methods.measureUserAgentSpecificMemory = measureUserAgentSpecificMemory;
    methods.measureMemory = function measureMemory() {
      return measureUserAgentSpecificMemory.call(this);
    };
  }

  // The ponyfill's performance object: a Performance of its own, on the host's clock.
  const Base = typeof EventTarget === 'function' ? EventTarget : Object;
  class Performance extends Base {
    constructor(token) {
      if (token !== PERF_TOKEN)
        throw new TypeError("Failed to construct 'Performance': Illegal constructor");
      super();
    }

    now() {
      return nativeNow();
    }
    get timeOrigin() {
      return timeOrigin;
    }
    toJSON() {
      const json = { timeOrigin };
      for (const key of ['timing', 'navigation'])
        if (nativePerformance && key in nativePerformance) json[key] = nativePerformance[key];
      return json;
    }
  }
  const proto = Performance.prototype;
  for (const [key, fn] of Object.entries(methods)) defineValue(proto, key, fn, true);
  // Host extras (timing, navigation, eventCounts, memory, ...) read through to the host.
  for (const key of ['timing', 'navigation', 'eventCounts', 'memory', 'interactionCount']) {
    const get = () => nativePerformance[key];
    if (nativePerformance && key in nativePerformance)
      Object.defineProperty(proto, key, { get, enumerable: true, configurable: true });
  }
  webidlShape(Performance, 'Performance');
  const performance = new Performance(PERF_TOKEN);

  return {
    core,
    timeline,
    methods,
    /** install() put methods on the host's Performance: accept it (and its successors) as `this`. */
    acceptHost() {
      hostAccepted = true;
    },
    hostWatchers,
    withHostCopies,
    performance,
    PerformanceEntry,
    PerformanceMark,
    PerformanceMeasure,
    PerformanceObserver,
    PerformanceObserverEntryList,
    /** Cap the buffer of 'mark' or 'measure' (0 = unbounded, the default). */
    setBufferLimit(type, max) {
      const t = typeIndex(type);
      if (t < 0)
        throw new TypeError(
          `setBufferLimit: unknown entry type '${type}' (expected 'mark' or 'measure')`,
        );
      const n = Number(max);
      if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
        throw new RangeError(
          'setBufferLimit: the limit must be an integer from 0 (unbounded) to 4294967295',
        );
      core.x.ps_timeline_set_limit(t, n);
    },
    /** Entries counted as dropped because a capped buffer was full. */
    droppedEntries(type) {
      return timeline.dropped(type);
    },
    /** Buffer a 'mark' or 'measure' made elsewhere (the host's, at install) as one of ours. */
    adopt(type, name, startTime, duration, detail) {
      const t = typeIndex(type);
      return timeline.add(t, name, startTime, t === MARK ? 0 : duration, detail, 'perfshim');
    },
  };
}

const PERF_TOKEN = Symbol('perfshim.performance');
