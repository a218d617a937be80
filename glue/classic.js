// What a classic-script build (dist/perfshim.auto.js, dist/perfshim.timeline.auto.js) does on
// load: install synchronously and expose the entry as `globalThis.perfshim`, while running the
// entry's modules only when something first uses them (issue 25: every page view pays for this
// script, profiled or not). `load()` returns the entry: the bundle's require() of it, whose
// modules esbuild wraps in functions that run on that first call.
//
// Where the host's User Timing and Performance Timeline conform (every evergreen browser),
// install() would put only the Profiler and the Measure Memory methods the host lacks: the
// Profiler class is made now (cheap: its sources and trace code work from the first `new
// Profiler()` on), each missing Measure Memory method is a forwarder that loads the entry on its
// first call (it returns a promise anyway), and the members of `perfshim` are getters that load
// the entry on their first read, then become its values. Anywhere else, or with `data-force`
// on the script tag (or globalThis.PERFSHIM = { force: true }), the entry is loaded at once and
// installs as the module entries do.
import { markMeasure, nativeHome, timelineShortfalls } from './host/host.js';
import { defineValue } from './host/webidl.js';

const g = globalThis;
const INSTALLED = Symbol.for('perfshim.installed'); // install.js's record of what is installed
const REALM = Symbol.for('perfshim.realm');
const MEMORY_METHODS = ['measureUserAgentSpecificMemory', 'measureMemory'];
// Marks a Measure Memory forwarder (of any copy of this script: the first to load its entry
// replaces them all).
const FORWARDER = Symbol.for('perfshim.memoryForwarder');

/**
 * Install the entry that `load()` returns and expose it as `globalThis.perfshim`. `keys`: the
 * entry's export names. The full entry's features: `profiler`, its Profiler class's maker
 * (sharedProfilerClass), and `memory`; perfshim/timeline has neither.
 */
export function installClassic(load, keys, { profiler = null, memory = false } = {}) {
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  const force = !!((script && script.dataset && 'force' in script.dataset) || g.PERFSHIM?.force);
  if (force || timelineShortfalls().length) {
    const entry = load();
    entry.install({ force });
    g.perfshim = entry;
    return;
  }
  const done = g[INSTALLED] || (g[INSTALLED] = { features: new Set() });
  const perfshim = {};
  let entry = null;
  const loadEntry = () => {
    if (entry) return entry;
    entry = load();
    for (const key of keys)
      Object.defineProperty(perfshim, key, { value: entry[key], enumerable: true });
    const realm = g[REALM];
    const replaced = MEMORY_METHODS.filter((key) => nativeHome[key]?.[FORWARDER]);
    for (const key of replaced) defineValue(nativeHome, key, realm.methods[key], true);
    if (replaced.length) realm.acceptHost(); // the host's performance is a `this` of its methods
    return entry;
  };
  for (const key of keys)
    Object.defineProperty(perfshim, key, {
      get: () => loadEntry()[key],
      enumerable: true,
      configurable: true,
    });
  if (profiler && !done.features.has('profiler')) {
    // (the entry takes the same class: sharedProfilerClass makes it once)
    defineValue(g, 'Profiler', profiler(), false);
    done.features.add('profiler');
  }
  if (memory && !done.features.has('memory')) {
    for (const key of MEMORY_METHODS) {
      if (typeof nativeHome[key] === 'function') continue;
      // A method, as WebIDL operations are (no prototype, not a constructor), named `key`.
      const { [key]: forward } = {
        [key]() {
          loadEntry();
          return nativeHome[key].apply(this, arguments);
        },
      };
      Object.defineProperty(forward, FORWARDER, { value: true });
      defineValue(
        nativeHome,
        key,
        key === MEMORY_METHODS[0] ? markMeasure(forward) : forward,
        true,
      );
      done.features.add('memory');
    }
  }
  g.perfshim = perfshim;
}

/** The entry's functions named after their keys again: dist/perfshim.auto.js minifies
 *  identifiers (classes keep their WebIDL names). Returns the entry. */
export function nameFunctions(entry) {
  for (const [key, value] of Object.entries(entry))
    if (typeof value === 'function' && /^[a-z]/.test(key) && value.name !== key)
      Object.defineProperty(value, 'name', { value: key });
  return entry;
}
