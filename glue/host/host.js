// Host probes that can wait for a first use, over what ./native.js took from the host at load:
// the host's performance object and clock (which can change), the kind of global, the native
// supported entry types, task queueing, exception reporting and the navigation id.
import { hostNow, hostPerformance, isNode, native, nativeHome } from './native.js';

const g = globalThis;

// The host's performance object can change once: when an iframe's initial about:blank document
// is replaced by its page in the same global, Firefox and WebKit give the page a new
// Performance (its own clock, time origin and entries); adoptHostPerformance() moves to it.
export let nativePerformance = hostPerformance;
const loadedAt = Date.now(); // the clock of a host without one: ms since this module loaded
export let nativeNow = hostPerformance
  ? Function.prototype.call.bind(hostNow, hostPerformance)
  : () => Date.now() - loadedAt;
export let timeOrigin =
  hostPerformance && typeof hostPerformance.timeOrigin === 'number'
    ? hostPerformance.timeOrigin
    : Date.now() - nativeNow();

// The host's brand check: its own timeOrigin getter (or now()) throws a TypeError for anything
// that is not a genuine Performance object of this realm. None for a plain-object host.
const brand = (() => {
  if (!nativeHome || nativeHome === hostPerformance) return null;
  const d = Object.getOwnPropertyDescriptor(nativeHome, 'timeOrigin');
  return d && typeof d.get === 'function' ? d.get : hostNow;
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
  nativeNow = Function.prototype.call.bind(hostNow, o);
  if (typeof o.timeOrigin === 'number') timeOrigin = o.timeOrigin;
  navId = undefined;
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
