// Installing perfshim on the globals, without breaking the host: the host's Performance
// object keeps its clock, timeOrigin, timing, navigation and toJSON; its own entry types stay
// visible through our queries and observers (see timeline.js, observer.js); marks and measures
// it buffered before install are carried over. By default only what is missing or
// non-conforming is installed; `force` (or globalThis.PERFSHIM = { force: true } before the
// import, or data-force on the classic script tag) installs over a conforming host too.
import { nativePerformance } from '../host/host.js';
import { native, nativeHome, timelineShortfalls } from '../host/native.js';
import { defineValue } from '../host/webidl.js';
import { hostQuery } from './timeline.js';

const g = globalThis;
const INSTALLED = Symbol.for('perfshim.installed');
const MEMORY_METHODS = ['measureUserAgentSpecificMemory', 'measureMemory'];
const GLOBALS =
  'PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver PerformanceObserverEntryList';

/** Carry the host's buffered marks and measures over, in time order, then clear them there. */
function adoptHostEntries(realm) {
  if (!native.getEntriesByType) return; // (null: no host performance)
  for (const [type, clear] of [
    ['mark', native.clearMarks],
    ['measure', native.clearMeasures],
  ]) {
    const list = hostQuery(null, type);
    for (const e of list) realm.adopt(type, e.name, e.startTime, e.duration, e.detail ?? null);
    if (clear && list.length) clear.call(nativePerformance);
  }
}

/** Count the host's own observers of mark/measure from now on (their observe() and
 *  disconnect() are wrapped), so that our entries reach them too (realm.hostWatchers), and
 *  observe({type, buffered: true}) sees our buffered entries. Limits (documented): an observer
 *  the host registered before install is not seen; buffered entries are not lent while another
 *  host observer of the same type is registered (it would receive them twice). */
function watchHostObservers(realm) {
  if (!native.PerformanceObserver || !native.mark || !native.measure) return;
  const proto = native.PerformanceObserver.prototype;
  const { observe, disconnect } = proto;
  const watchers = new Map([
    ['mark', new Set()],
    ['measure', new Set()],
  ]); // owned type -> the host observers that observe it
  /** Record which owned types `observer` observes (watches(type, its set)), then the counts. */
  const track = (observer, watches) => {
    for (const [type, set] of watchers) {
      if (watches(type, set)) set.add(observer);
      else set.delete(observer);
      realm.hostWatchers[type] = set.size;
    }
  };
  // Method shorthand keeps the host's name and length (observe: 0, disconnect: 0).
  const wrapped = {
    observe() {
      const options = arguments[0];
      const set = options && !options.entryTypes && watchers.get(options.type);
      // buffered: true must see our buffered entries; lend the host copies for this call, unless
      // other host observers of the type would receive those copies too.
      const result =
        options?.buffered && set && set.size === (set.has(this) ? 1 : 0)
          ? realm.withHostCopies(options.type, () => observe.apply(this, arguments))
          : observe.apply(this, arguments);
      // entryTypes replaces what this observer observed; type adds to it.
      const types = new Set(options?.entryTypes || [options?.type]);
      track(this, (t, set) => types.has(t) || (!options?.entryTypes && set.has(this)));
      return result;
    },
    disconnect() {
      track(this, () => false);
      return disconnect.apply(this, arguments);
    },
  };
  for (const [key, fn] of Object.entries(wrapped)) defineValue(proto, key, fn, true);
}

/** A plain-object (or null-prototype) host `performance` gets a real Performance interface: its
 *  prototype becomes perfshim's Performance.prototype (which holds the methods and inherits from
 *  EventTarget.prototype where there is one, as in browsers), and the global `Performance` is that
 *  interface object (an illegal constructor). The object keeps its identity and its own clock
 *  (now(), and timeOrigin if it has one); its own copies of the methods perfshim replaces go, as
 *  they would hide the inherited ones. Object.prototype is never touched. Returns where the
 *  methods go: that prototype, or the object itself if its prototype cannot change. */
function givePerformanceInterface(realm) {
  const proto = Object.getPrototypeOf(realm.performance);
  if (!Reflect.setPrototypeOf(nativePerformance, proto)) return nativePerformance;
  for (const key of Object.keys(realm.methods))
    if (!MEMORY_METHODS.includes(key)) Reflect.deleteProperty(nativePerformance, key);
  defineValue(g, 'Performance', proto.constructor, false);
  return proto;
}

/** Where install() puts the methods: the host's Performance.prototype (nativeHome), or for a
 *  plain-object host, the Performance.prototype that givePerformanceInterface gave it. */
function methodHome(realm) {
  const proto = Object.getPrototypeOf(realm.performance);
  return nativeHome === nativePerformance && Object.getPrototypeOf(nativePerformance) === proto
    ? proto
    : nativeHome;
}

function installTimeline(realm) {
  if (nativePerformance) {
    adoptHostEntries(realm);
    const home = nativeHome === nativePerformance ? givePerformanceInterface(realm) : nativeHome;
    for (const [key, fn] of Object.entries(realm.methods))
      if (!MEMORY_METHODS.includes(key)) defineValue(home, key, fn, true);
    realm.acceptHost();
    watchHostObservers(realm);
  } else {
    defineValue(g, 'performance', realm.performance, true);
  }
  for (const name of GLOBALS.split(' ')) defineValue(g, name, realm[name], false);
}

/** Install on the globals. Returns { installed: [...features], reasons: {feature: [...]} }. */
export function install(realm, options = {}) {
  const force = !!(options.force || g.PERFSHIM?.force);
  const done = g[INSTALLED] || (g[INSTALLED] = { features: new Set() });
  const result = { installed: [], reasons: {} };
  /** Install `feature` when the host falls short (shortfalls(): why, null when the realm has no
   *  such feature) or with force. */
  const add = (feature, shortfalls, put) => {
    if (done.features.has(feature)) return;
    const why = shortfalls(realm);
    if (!why || (!force && !why.length)) return;
    put(realm, force);
    done.features.add(feature);
    result.installed.push(feature);
    result.reasons[feature] = why.length ? why : ['forced'];
  };
  add('timeline', timelineShortfalls, installTimeline);
  for (const [feature, shortfalls, put] of realm.features || []) add(feature, shortfalls, put);
  return result;
}

/** The full entry's features (it sets realm.features; the timeline-only bundle leaves them
 *  out), as [feature, shortfalls(realm), put(realm, force)]. */
export const FULL_FEATURES = [
  // Defined everywhere (where no source exists, construction throws NotAllowedError, as the
  // spec's policy check does), and over a native Profiler too: Chromium's refuses with
  // NotAllowedError unless the document policy allows it, and telling would mean starting a
  // native profile here. Ours decides per `new Profiler()`: the native one where the document
  // allows it (its traces re-encoded in the core), else the instrumentation source.
  [
    'profiler',
    (realm) =>
      g.Profiler === realm.Profiler
        ? []
        : typeof g.Profiler === 'function'
          ? ['the native Profiler works only under Document-Policy: js-profiling']
          : ['no Profiler'],
    (realm) => defineValue(g, 'Profiler', realm.Profiler, false),
  ],
  // Why the host's Measure Memory should be provided ([] = the host has both names).
  [
    'memory',
    (realm) =>
      realm.methods.measureUserAgentSpecificMemory
        ? MEMORY_METHODS.filter((k) => !hostHas(realm, k)).map((k) => `no ${k}`)
        : null,
    installMemory,
  ],
];

/** Whether the host's performance has its own `key` method (not perfshim's, which a plain-object
 *  host inherits once givePerformanceInterface has run). */
const hostHas = (realm, key) =>
  typeof nativeHome?.[key] === 'function' && nativeHome[key] !== realm.methods[key];

/** measureUserAgentSpecificMemory and measureMemory where the host's methods live (see
 *  methodHome). Over a native one (force), ours still uses the native measurement as its source
 *  where allowed. */
function installMemory(realm, force) {
  if (!nativePerformance) return; // the ponyfill performance installed by installTimeline has them
  const home = methodHome(realm);
  for (const key of MEMORY_METHODS)
    if (force || !hostHas(realm, key)) {
      // (a plain-object host's own copy would hide the inherited one)
      if (home !== nativeHome) Reflect.deleteProperty(nativePerformance, key);
      defineValue(home, key, realm.methods[key], true);
    }
  realm.acceptHost();
}
