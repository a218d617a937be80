// The classic-script build (dist/perfshim.auto.js): `<script src=".../perfshim.auto.js">` in a
// page, or importScripts() in a worker, installs synchronously and exposes `perfshim`; the
// entry's code is compiled and run when first used (glue/classic.js). `<script src=...
// data-force>` installs over a conforming host too.
import { installClassic, nameFunctions, profilerAndMemory } from './classic.js';
import { makeProfilerClass, sharedProfilerClass } from './profiler/profiler-class.js';
// The build's module of ./auto-classic-first-use.js as text (tools/build-dist.mjs):
// firstUse() compiles and runs it once, and returns its exports.
import { firstUse } from 'perfshim:first-use';

// glue/index.js's exports (test/node/dist-classic-lazy-install.test.js checks the list).
const KEYS =
  'performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver ' +
  'PerformanceObserverEntryList Profiler setBufferLimit droppedEntries install default ' +
  'toCpuProfile toTraceEvents toSpeedscope toFirefoxProfile fromCpuProfile';

// The realm's Profiler class, made now; its core, codec and sources on the first `new Profiler()`.
const profiler = () =>
  sharedProfilerClass(() => makeProfilerClass(() => firstUse().defaultBackend()));

installClassic(() => nameFunctions(firstUse().entry), KEYS.split(' '), profilerAndMemory(profiler));
