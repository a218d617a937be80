// The classic-script build (dist/perfshim.auto.js): `<script src=".../perfshim.auto.js">` in a
// page, or importScripts() in a worker, installs synchronously and exposes `perfshim`; the
// entry's code runs when first used (glue/classic.js). `<script src=... data-force>` installs
// over a conforming host too.
import { installClassic, nameFunctions } from './classic.js';
import { lazyCore, loadCore } from './host/loader.js';
import { makeProfilerClass, sharedProfilerClass } from './profiler/profiler-class.js';

// glue/index.js's exports (test/node/dist-classic-lazy-install.test.js checks the list).
const KEYS =
  'performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver ' +
  'PerformanceObserverEntryList Profiler setBufferLimit droppedEntries install default ' +
  'toCpuProfile toTraceEvents toSpeedscope toFirefoxProfile fromCpuProfile';

// The realm's Profiler class, made now; its sources' code runs on the first `new Profiler()`.
// (esbuild bundles require() of an ES module as a call that runs its modules then.)
const profiler = () =>
  sharedProfilerClass(() =>
    makeProfilerClass(lazyCore(loadCore), () => require('./profiler/profiler.js').defaultSources()),
  );

installClassic(() => nameFunctions(require('./index.js')), KEYS.split(' '), {
  profiler,
  memory: true,
});
