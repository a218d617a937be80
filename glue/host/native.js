// What perfshim takes from the host when it loads, before anything is installed over it or a page
// wraps it: the performance object and its now(), the native timeline's methods and interfaces
// (for the entry types perfshim does not own), Chromium's Profiler and the host's Measure Memory.
// Only this is read at load; ./host.js builds on it what can wait for a first use (a classic
// script's load part holds this module alone of glue/host: issue 25, every page view pays for
// each function it compiles and runs, so this is straight-line code).
const g = globalThis;
const perf = g.performance;
const hasOwn = (o, key) => Object.prototype.hasOwnProperty.call(o, key);

/** The host's performance object as perfshim found it, or null where it has no now(). */
export const hostPerformance = perf && typeof perf.now === 'function' ? perf : null;
const proto = hostPerformance && Object.getPrototypeOf(perf);
/** Where the host's methods live, and where install() puts ours: the prototype that holds now()
 *  or mark() (a real Performance.prototype; Bun's performance has its own now() and the rest on
 *  the prototype), else the object itself (a plain-object or null-prototype `performance`, as
 *  some runtimes and test environments have): never Object.prototype. */
export const nativeHome = !hostPerformance
  ? null
  : proto !== null &&
      proto !== Object.prototype &&
      ((hasOwn(proto, 'now') && typeof proto.now === 'function') ||
        (hasOwn(proto, 'mark') && typeof proto.mark === 'function'))
    ? proto
    : perf;
/** The host's now(): the prototype's own where it has one, as a faked own `now` may shadow it
 *  (Bun's own now otherwise). */
export const hostNow = !nativeHome ? null : hasOwn(nativeHome, 'now') ? nativeHome.now : perf.now;

/** The host's own methods (kept before install replaces them on the prototype) and the
 *  interfaces perfshim reads (PerformanceMark for the probe below, PerformanceEntry's instances,
 *  PerformanceObserver for the host's entry types), null where it has none. */
export const native = {};
const METHODS =
  'getEntries getEntriesByType getEntriesByName mark measure clearMarks clearMeasures';
for (const name of METHODS.split(' '))
  native[name] = nativeHome && typeof nativeHome[name] === 'function' ? nativeHome[name] : null;
for (const name of ['PerformanceObserver', 'PerformanceEntry', 'PerformanceMark'])
  native[name] = typeof g[name] === 'function' ? g[name] : null;

export const isNode = !!g.process?.versions?.node;

/** Why the host's User Timing / Performance Timeline should be replaced ([] = it conforms). */
export function timelineShortfalls() {
  // Node's perf_hooks is known not to conform: no need to probe it (the probe loads internals).
  if (isNode)
    return ["Node's perf_hooks queries overflow the stack past ~120,000 buffered entries"];
  const why = [];
  // (The host's methods and interfaces are null where it has none, or no performance at all.)
  if (!native.mark || !native.measure || !native.getEntriesByName) why.push('no User Timing');
  // User Timing 3's mark options: only its PerformanceMark has a constructor, which takes them
  // (`startTime` tells; a `detail` would be structured-cloned, which costs a page's load).
  let markOptions = false;
  try {
    markOptions = new native.PerformanceMark('perfshim-probe', { startTime: 1 }).startTime === 1;
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
export const NativeProfiler = /* @__PURE__ */ (() =>
  typeof g.Profiler === 'function' && !g.Profiler[PERFSHIM_PROFILER] ? g.Profiler : null)();

/** perfshim's measureUserAgentSpecificMemory functions are marked, and carry the host's function
 *  they replace, so that a copy of perfshim loaded after install (the Measure Memory bundle,
 *  loaded on first use) still finds the host's own. */
const PERFSHIM_MEASURE = Symbol.for('perfshim.measureMemory');
const NATIVE_MEASURE = Symbol.for('perfshim.measureMemory.native');
/** The host's own measureUserAgentSpecificMemory, or null. */
export const nativeMeasure = /* @__PURE__ */ (() => {
  const f = nativeHome && nativeHome.measureUserAgentSpecificMemory;
  if (typeof f !== 'function') return null;
  return f[PERFSHIM_MEASURE] ? f[NATIVE_MEASURE] || null : f;
})();
/** Mark `fn` as perfshim's measureUserAgentSpecificMemory (see nativeMeasure); returns it. */
export function markMeasure(fn) {
  Object.defineProperty(fn, PERFSHIM_MEASURE, { value: true });
  if (nativeMeasure) Object.defineProperty(fn, NATIVE_MEASURE, { value: nativeMeasure });
  return fn;
}
