// Host probes captured once, before anything is installed: the clock behind performance.now(),
// the native timeline (for the entry types perfshim does not own), and the kind of global.
// The host's performance object can change once: when an iframe's initial about:blank document
// is replaced by its page in the same global, Firefox and WebKit give the page a new
// Performance (its own clock, time origin and entries); adoptHostPerformance() moves to it.
const g = globalThis;
const perf = g.performance;

export let nativePerformance = perf && typeof perf.now === 'function' ? perf : null;
/** Where the host's methods live, and where install() puts ours: the prototype that holds now()
 *  or mark() (a real Performance.prototype; Bun's performance has its own now() and the rest on
 *  the prototype), else the object itself (a plain-object or null-prototype `performance`, as
 *  some runtimes and test environments have): never Object.prototype. */
export const nativeHome = (() => {
  if (!nativePerformance) return null;
  const p = Object.getPrototypeOf(perf);
  const holds = (key) =>
    Object.prototype.hasOwnProperty.call(p, key) && typeof p[key] === 'function';
  return p !== null && p !== Object.prototype && (holds('now') || holds('mark')) ? p : perf;
})();
// (the prototype's own now() where it has one, as a faked own `now` may shadow it; Bun's own now)
const nowFn = !nativeHome
  ? null
  : Object.prototype.hasOwnProperty.call(nativeHome, 'now')
    ? nativeHome.now
    : perf.now;
const loadedAt = Date.now(); // the clock of a host without one: ms since this module loaded
export let nativeNow = nativePerformance
  ? Function.prototype.call.bind(nowFn, perf)
  : () => Date.now() - loadedAt;
export let timeOrigin =
  nativePerformance && typeof perf.timeOrigin === 'number'
    ? perf.timeOrigin
    : Date.now() - nativeNow();

// The host's brand check: its own timeOrigin getter (or now()) throws a TypeError for anything
// that is not a genuine Performance object of this realm. None for a plain-object host.
const brand = (() => {
  if (!nativeHome || nativeHome === perf) return null;
  const d = Object.getOwnPropertyDescriptor(nativeHome, 'timeOrigin');
  return d && typeof d.get === 'function' ? d.get : nowFn;
})();

/** Whether `o` is a genuine host Performance object of this realm (a brand check, not
 *  identity: the captured one, or a later document's in the same global). */
export function isHostPerformance(o) {
  if (o === nativePerformance) return o !== null;
  if (!brand || o === null || typeof o !== 'object' || Object.getPrototypeOf(o) !== nativeHome)
    return false;
  try {
    brand.call(o);
    return true;
  } catch {
    return false;
  }
}

/** Make `o` (a genuine Performance, see isHostPerformance) the host's performance object: the
 *  clock, time origin, host entries and navigation id are its own from now on. Entries perfshim
 *  buffered before keep their times (on the previous document's clock). */
export function adoptHostPerformance(o) {
  nativePerformance = o;
  nativeNow = Function.prototype.call.bind(nowFn, o);
  if (typeof o.timeOrigin === 'number') timeOrigin = o.timeOrigin;
  navId = undefined;
}
/** The host's own methods (kept before install replaces them on the prototype) and interfaces. */
const own = (o, name) => (o && typeof o[name] === 'function' ? o[name] : null);
const METHODS =
  'getEntries getEntriesByType getEntriesByName mark measure clearMarks clearMeasures';
const INTERFACES =
  'PerformanceObserver PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserverEntryList';
export const native = Object.fromEntries([
  ...METHODS.split(' ').map((n) => [n, own(nativeHome, n)]),
  ...INTERFACES.split(' ').map((n) => [n, own(g, n)]),
]);

/** Why the host's User Timing / Performance Timeline should be replaced ([] = it conforms). */
export function timelineShortfalls() {
  // Node's perf_hooks is known not to conform: no need to probe it (the probe loads internals).
  if (isNode)
    return ["Node's perf_hooks queries overflow the stack past ~120,000 buffered entries"];
  const why = [];
  // (The host's methods and interfaces are null where it has none, or no performance at all.)
  if (!native.mark || !native.measure || !native.getEntriesByName) why.push('no User Timing');
  let markOptions = false;
  try {
    const m = new native.PerformanceMark('perfshim-probe', { detail: { a: 1 }, startTime: 1 });
    markOptions = !!m.detail && m.detail.a === 1 && m.startTime === 1;
  } catch {
    // no constructor (null), or one that rejects the options
  }
  if (!native.PerformanceMark) why.push('no PerformanceMark constructor');
  else if (!markOptions) why.push('no User Timing 3 mark options');
  if (!Array.isArray(native.PerformanceObserver?.supportedEntryTypes))
    why.push('no PerformanceObserver.supportedEntryTypes');
  return why;
}

/** Marks perfshim's Profiler classes (every copy's), so that none is taken for the host's. */
export const PERFSHIM_PROFILER = Symbol.for('perfshim.Profiler');
/** The host's own Profiler (Chromium's), captured before perfshim installs its own over the
 *  global; null where there is none. */
export const NativeProfiler =
  typeof g.Profiler === 'function' && !g.Profiler[PERFSHIM_PROFILER] ? g.Profiler : null;

/** perfshim's measureUserAgentSpecificMemory functions are marked, and carry the host's function
 *  they replace, so that a copy of perfshim loaded after install (the Measure Memory bundle,
 *  loaded on first use) still finds the host's own. */
const PERFSHIM_MEASURE = Symbol.for('perfshim.measureMemory');
const NATIVE_MEASURE = Symbol.for('perfshim.measureMemory.native');
/** The host's own measureUserAgentSpecificMemory, or null. */
export const nativeMeasure = /* @__PURE__ */ (() => {
  const f = own(nativeHome, 'measureUserAgentSpecificMemory');
  return f?.[PERFSHIM_MEASURE] ? f[NATIVE_MEASURE] || null : f;
})();
/** Mark `fn` as perfshim's measureUserAgentSpecificMemory (see nativeMeasure); returns it. */
export function markMeasure(fn) {
  Object.defineProperty(fn, PERFSHIM_MEASURE, { value: true });
  if (nativeMeasure) Object.defineProperty(fn, NATIVE_MEASURE, { value: nativeMeasure });
  return fn;
}

/** The native supported entry types (a copy of the frozen array) or [] (also when the getter
 *  throws: an earlier polyfill's or a detached realm's must not stop perfshim loading). */
export const nativeSupportedTypes = (() => {
  try {
    const t = native.PerformanceObserver?.supportedEntryTypes;
    return Array.isArray(t) ? t.slice() : [];
  } catch {
    return [];
  }
})();

/** A browser Window. Deno's global is a `Window` too (for web compatibility), with no document
 *  and no PerformanceTiming: its own mark('navigationStart') is a mark, as outside a Window. */
export const isWindow =
  typeof g.Window === 'function' && g instanceof g.Window && typeof g.Deno !== 'object';
export const isWorker =
  typeof g.WorkerGlobalScope === 'function' && g instanceof g.WorkerGlobalScope;
export const isNode = !!g.process?.versions?.node;
/** The server-side runtime ('bun', 'deno', 'node'; Bun and Deno also report a Node version), or
 *  '' elsewhere (browsers and their workers). */
export const runtime = g.process?.versions?.bun
  ? 'bun'
  : typeof g.Deno === 'object' && g.Deno !== null
    ? 'deno'
    : isNode
      ? 'node'
      : '';

/** Run `fn` in a new task: setImmediate in Node, a MessageChannel message in browsers (its
 *  channel made on the first call: loading perfshim makes none). */
let post = null;
export function queueTask(fn) {
  if (!post) post = taskPoster();
  post(fn);
}
function taskPoster() {
  if (typeof g.setImmediate === 'function') return (fn) => g.setImmediate(fn);
  if (typeof g.MessageChannel === 'function') {
    const ch = new g.MessageChannel();
    const q = [];
    ch.port1.onmessage = () => q.shift()(); // one message per queued function
    return (fn) => {
      q.push(fn);
      ch.port2.postMessage(0);
    };
  }
  return (fn) => setTimeout(fn, 0);
}

/** Report an exception from a callback without stopping the caller (HTML "report the exception"). */
export function reportException(e) {
  if (typeof g.reportError === 'function') g.reportError(e);
  else
    (isNode ? process.nextTick : setTimeout)(() => {
      throw e;
    });
}

/** The PerformanceTiming attribute names (User Timing: special in mark() and measure()). */
export const TIMING_NAMES = new Set(
  (
    'navigationStart unloadEventStart unloadEventEnd redirectStart redirectEnd fetchStart ' +
    'domainLookupStart domainLookupEnd connectStart connectEnd secureConnectionStart ' +
    'requestStart responseStart responseEnd domLoading domInteractive ' +
    'domContentLoadedEventStart domContentLoadedEventEnd domComplete loadEventStart loadEventEnd'
  ).split(' '),
);

/** The navigationId of this document's navigation entry (read once), or null. A page restored
 *  from the back/forward cache keeps the first one: a documented simplification. */
export const hasNavigationId = !!(
  native.PerformanceEntry && 'navigationId' in native.PerformanceEntry.prototype
);
let navId;
export function currentNavigationId() {
  if (navId === undefined && hasNavigationId && native.getEntriesByType) {
    const nav = native.getEntriesByType.call(nativePerformance, 'navigation')[0];
    navId = nav && nav.navigationId !== undefined ? nav.navigationId : null;
  }
  return navId;
}
