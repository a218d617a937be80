// perfshim, the ponyfill: `import { performance, PerformanceObserver, ... } from 'perfshim'`
// touches no globals. One realm (core + timeline) per JavaScript realm, shared by every copy of
// the package that is loaded (ESM and CommonJS), so there is only ever one timeline.
import { lazyCore, loadCore } from './host/loader.js';
import { createRealm } from './timeline/performance.js';
import { install as installInto, FULL_FEATURES } from './timeline/install.js';
import { getProfiler } from './profiler/profiler.js';
import { markMeasure } from './host/native.js';
import { domException } from './host/errors.js';

/** measureUserAgentSpecificMemory, its code (glue/memory/measure-memory.js and its sources, and the
 *  Measure Memory core: 9 KB gzipped) loaded on the first call: the API is async, so the eager
 *  bundle leaves it out (dist/perfshim-memory.mjs). Marked by host.js's markMeasure, which also
 *  hands the host's own function, as found now (before install replaces it), to the browser
 *  source. */
function lazyMeasureMemory(core, options) {
  let made;
  return markMeasure(function measureUserAgentSpecificMemory() {
    if (!made)
      made = import('./memory/measure-memory.js').then(
        (m) => m.createMeasureMemory(core, options),
        (e) => {
          made = null; // a later call tries again
          throw domException(
            'NotSupportedError',
            "perfshim: Measure Memory's code could not be loaded: dist/perfshim-memory*.mjs " +
              "must be served beside perfshim's script (a bundler that does not emit it, such " +
              `as Rollup, needs it copied next to the bundle): ${e && e.message}`,
          );
        },
      );
    return made.then((f) => f.call(this));
  });
}

const KEY = Symbol.for('perfshim.realm');
const realm =
  globalThis[KEY] ||
  (globalThis[KEY] = createRealm(lazyCore(loadCore), { measureMemory: lazyMeasureMemory }));
// A realm that perfshim/timeline made first keeps its timeline (one per realm); profiler traces
// then live in a full core of their own (the timeline-only core has no trace functions).
if (!realm.Profiler) {
  realm.traceCore = realm.methods.measureUserAgentSpecificMemory ? realm.core : lazyCore(loadCore);
  realm.Profiler = getProfiler(realm.traceCore);
  realm.features = FULL_FEATURES; // install() adds the Profiler and Measure Memory
}

export const { performance, PerformanceEntry, PerformanceMark, PerformanceMeasure } = realm;
export const { PerformanceObserver, PerformanceObserverEntryList } = realm;
// JS Self-Profiling: real samples from V8 (Node) or the native Profiler (Chromium).
export const { Profiler } = realm;
// setBufferLimit caps the 'mark' or 'measure' buffer (0 = unbounded, the spec's default);
// entries past the cap are dropped and counted (droppedEntriesCount, droppedEntries()).
export const { setBufferLimit, droppedEntries } = realm;

/** Install perfshim's APIs on the globals. Options: { force } (replace conforming host APIs
 *  too). Returns what was installed. */
export function install(options) {
  return installInto(realm, options);
}

export default performance;

// Trace exporters (Chrome .cpuprofile, trace events, speedscope) and the .cpuprofile importer,
// over the realm's core (instantiated on the first call, like the rest).
import { createExporters } from './export/export.js';
// A ProfilerTrace as a Chrome DevTools .cpuprofile object (JSON.stringify it to save), as Chrome
// trace-event JSON (+ options.entries' marks and measures), as a speedscope file object, as a
// Firefox Profiler processed profile (profiler.firefox.com); a .cpuprofile (object or JSON
// text) as a ProfilerTrace.
export const { toCpuProfile, toTraceEvents, toSpeedscope, toFirefoxProfile, fromCpuProfile } =
  createExporters(realm.traceCore);
