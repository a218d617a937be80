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
// (Of glue/host, only native.js runs at load: errors.js and webidl.js are first-use code in
// perfshim/timeline's script. A classic script runs where DOMException is a global.)
import { markMeasure, nativeHome, timelineShortfalls } from './host/native.js';

const g = globalThis;
const INSTALLED = Symbol.for('perfshim.installed'); // install.js's record of what is installed
const REALM = Symbol.for('perfshim.realm');
const MEMORY_METHODS = ['measureUserAgentSpecificMemory', 'measureMemory'];
// Marks a Measure Memory forwarder (of any copy of this script: the first to load its entry
// replaces them all).
const FORWARDER = Symbol.for('perfshim.memoryForwarder');
// A data property as WebIDL defines an operation (enumerable) or an interface object on the
// global (not enumerable), as webidl.js's defineValue does.
const defineValue = (obj, key, value, enumerable) =>
  Object.defineProperty(obj, key, { value, writable: true, enumerable, configurable: true });

/**
 * Install the entry that `load()` returns and expose it as `globalThis.perfshim`. `keys`: the
 * entry's export names. `features(loadEntry)`: what the script installs at load besides (the full
 * entry's: profilerAndMemory()); it returns what to do once the entry has loaded, or null.
 */
export function installClassic(load, keys, features = null) {
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  const force = !!((script && script.dataset && 'force' in script.dataset) || g.PERFSHIM?.force);
  if (force || timelineShortfalls().length) {
    const entry = load();
    entry.install({ force });
    g.perfshim = entry;
    return;
  }
  const perfshim = {};
  let entry = null;
  let loaded = null;
  const loadEntry = () => {
    if (entry) return entry;
    entry = load();
    for (const key of keys)
      Object.defineProperty(perfshim, key, { value: entry[key], enumerable: true });
    if (loaded) loaded();
    return entry;
  };
  for (const key of keys)
    Object.defineProperty(perfshim, key, {
      get: () => loadEntry()[key],
      enumerable: true,
      configurable: true,
    });
  if (features) loaded = features(loadEntry);
  g.perfshim = perfshim;
}

/**
 * dist/perfshim.auto.js's features at load (installClassic): the Profiler class that `profiler()`
 * makes (sharedProfilerClass), and a forwarder for each Measure Memory method the host lacks,
 * which loads the entry on its first call (it returns a promise anyway). Once the entry has
 * loaded, the entry's methods replace every copy's forwarders.
 */
export const profilerAndMemory = (profiler) => (loadEntry) => {
  const done = g[INSTALLED] || (g[INSTALLED] = { features: new Set() });
  if (!done.features.has('profiler')) {
    // (the entry takes the same class: sharedProfilerClass makes it once)
    defineValue(g, 'Profiler', profiler(), false);
    done.features.add('profiler');
  }
  if (!done.features.has('memory')) {
    for (const key of MEMORY_METHODS) {
      if (typeof nativeHome[key] === 'function') continue;
      // A method, as WebIDL operations are (no prototype, not a constructor), named `key`.
      const { [key]: forward } = {
        [key]() {
          try {
            loadEntry();
          } catch (e) {
            return Promise.reject(e); // (a promise-returning operation rejects)
          }
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
  return () => {
    const realm = g[REALM];
    const replaced = MEMORY_METHODS.filter((key) => nativeHome[key]?.[FORWARDER]);
    for (const key of replaced) defineValue(nativeHome, key, realm.methods[key], true);
    if (replaced.length) realm.acceptHost(); // the host's performance is a `this` of its methods
  };
};

// Where the first-use code puts itself when it runs as an inline script (tools/build-dist.mjs
// gives the CSP hash of exactly this text followed by the code on the script's second line).
const FIRST_USE = 'globalThis[Symbol.for("perfshim.firstUse")]=';
const SLOT = Symbol.for('perfshim.firstUse');
// The global eval as the script found it (a page may replace the global later); called through
// this binding it is an indirect eval, in the global scope.
const globalEval = g.eval;

/**
 * The classic script's first-use code: the modules only a first use needs (the entry's realm,
 * the exporters, the Profiler's sources, Measure Memory), which the build bundles on their own
 * and embeds as `text`, the source of a function of one parameter: the namespaces of the modules
 * that both halves use, `shared`, so that each stays one instance. Firefox compiles every
 * function in a script at load, whether it runs or not (issue 25: 4.5–6 ms of the full script);
 * a string costs it a scan. Returns a function that compiles and runs the code on its first
 * call and returns its exports from then on.
 *
 * Compiled by an (indirect) eval; where the page's Content-Security-Policy refuses that (no
 * 'unsafe-eval'), as an inline script carrying this script's nonce (tried first when it has
 * one: the page has a nonce policy, which seldom allows eval), which a policy also allows by
 * the hash on the script's second line. Where the host has Trusted Types, the code is a
 * TrustedScript of a policy named "perfshim". Where nothing is allowed, every first use throws
 * the same NotAllowedError, which says so (the page's policy is asked once: one report).
 */
export function firstUseModules(text, shared) {
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  const nonce = (script && script.nonce) || '';
  let exports = null;
  let refused = null;
  return () => {
    if (exports) return exports;
    if (refused) throw refused;
    let make;
    try {
      make = compileFirstUse(text, nonce);
    } catch (e) {
      throw (refused = e);
    }
    exports = make(shared);
    return exports;
  };
}

function compileFirstUse(text, nonce) {
  // Through perfshim's Trusted Types policy where the host has Trusted Types (a page that
  // requires them refuses a string; one that does not takes the TrustedScript as its text).
  const policy = trustedPolicy();
  const trusted = (code) => (policy ? policy.createScript(code) : code);
  const asEval = () => {
    try {
      // (eval, not Function(): Chromium's Function() takes no TrustedScript; no sourceURL:
      // Chromium's Profiler leaves a script without a URL out of its traces, as it leaves out
      // perfshim's own script, ownScripts(); with one, its frames show unnamed)
      return globalEval(trusted(`(${text})`));
    } catch (e) {
      // (refused: an EvalError, or a TypeError of Trusted Types; anything else is no refusal)
      if (e instanceof EvalError || e instanceof TypeError) return null;
      throw e;
    }
  };
  const asScript = () => {
    if (typeof document === 'undefined' || typeof document.createElement !== 'function')
      return null;
    try {
      const s = document.createElement('script');
      if (nonce) s.nonce = nonce;
      s.text = trusted(FIRST_USE + text);
      (document.head || document.documentElement).appendChild(s);
      s.remove();
    } catch {
      return null;
    }
    const made = g[SLOT];
    delete g[SLOT];
    return typeof made === 'function' ? made : null;
  };
  const made = nonce ? asScript() || asEval() : asEval() || asScript();
  if (made) return made;
  throw new DOMException(
    "perfshim: this page's Content-Security-Policy refuses the code perfshim compiles on first " +
      "use: allow 'unsafe-eval', give perfshim's script tag the page's nonce, or allow the hash " +
      "on the script's second line (README: Content-Security-Policy)",
    'NotAllowedError',
  );
}

let policy;
function trustedPolicy() {
  if (policy === undefined)
    try {
      const tt = g.trustedTypes;
      policy = tt ? tt.createPolicy('perfshim', { createScript: (s) => s }) : null;
    } catch {
      policy = null; // (the page's trusted-types directive does not allow the name)
    }
  return policy;
}

/** The entry's functions named after their keys again: dist/perfshim.auto.js minifies
 *  identifiers (classes keep their WebIDL names). Returns the entry. */
export function nameFunctions(entry) {
  for (const [key, value] of Object.entries(entry))
    if (typeof value === 'function' && /^[a-z]/.test(key) && value.name !== key)
      Object.defineProperty(value, 'name', { value: key });
  return entry;
}
