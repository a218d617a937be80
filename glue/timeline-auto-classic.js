// The classic-script build of perfshim/timeline (dist/perfshim.timeline.auto.js): as
// dist/perfshim.auto.js, with User Timing + Performance Timeline only.
import { installClassic } from './classic.js';

// glue/timeline-only.js's exports (test/node/dist-classic-lazy-install.test.js checks the list).
const KEYS =
  'performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver ' +
  'PerformanceObserverEntryList setBufferLimit droppedEntries install default';

installClassic(() => require('./timeline-only.js'), KEYS.split(' '));
