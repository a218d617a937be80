// perfshim/timeline: User Timing 3 + Performance Timeline 2 only (no profiler, memory or
// exporters), for pages and services that want marks and measures; its bundles embed the
// timeline-only core (wasm/perfshim-timeline.wasm). Same realm rule as the full entry: one
// timeline per JavaScript realm, shared with the full `perfshim` if that is loaded too.
import { lazyCore, loadTimelineCore } from './host/loader.js';
import { createRealm } from './timeline/performance.js';
import { install as installInto } from './timeline/install.js';

const KEY = Symbol.for('perfshim.realm');
const realm = globalThis[KEY] || (globalThis[KEY] = createRealm(lazyCore(loadTimelineCore)));

export const { performance, PerformanceEntry, PerformanceMark, PerformanceMeasure } = realm;
export const { PerformanceObserver, PerformanceObserverEntryList } = realm;
// setBufferLimit caps the 'mark' or 'measure' buffer (0 = unbounded); see the full entry.
export const { setBufferLimit, droppedEntries } = realm;

/** Install User Timing + Performance Timeline on the globals ({ force } as the full entry). */
export function install(options) {
  return installInto(realm, options);
}
// Its name survives the bundles that minify identifiers.
Object.defineProperty(install, 'name', { value: 'install' });

export default performance;
