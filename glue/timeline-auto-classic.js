// The classic-script build of perfshim/timeline (dist/perfshim.timeline.auto.js): as
// dist/perfshim.auto.js, with User Timing + Performance Timeline only.
import { installClassic } from './classic.js';
// The build's module of ./timeline-auto-classic-first-use.js as text (tools/build-dist.mjs).
import { firstUse } from 'perfshim:first-use';

// glue/timeline-only.js's exports (test/node/dist-classic-lazy-install.test.js checks the list).
const KEYS =
  'performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver ' +
  'PerformanceObserverEntryList setBufferLimit droppedEntries install default';

installClassic(() => firstUse().entry, KEYS.split(' '));
