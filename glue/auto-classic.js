// The classic-script build (dist/perfshim.auto.js): `<script src=".../perfshim.auto.js">` in a
// page, or importScripts() in a worker, installs synchronously and exposes `perfshim`; the
// entry's code runs when first used (glue/classic.js). `<script src=... data-force>` installs
// over a conforming host too.
import { installClassic, nameFunctions } from './classic.js';
import { getProfiler } from './profiler/profiler.js';

// glue/index.js's exports (test/node/dist-classic-lazy-install.test.js checks the list).
const KEYS =
  'performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver ' +
  'PerformanceObserverEntryList Profiler setBufferLimit droppedEntries install default ' +
  'toCpuProfile toTraceEvents toSpeedscope toFirefoxProfile fromCpuProfile';

// (esbuild bundles require() of an ES module as a call that runs its modules then)
installClassic(() => nameFunctions(require('./index.js')), KEYS.split(' '), {
  profiler: getProfiler,
  memory: true,
});
