// perfshim/timeline: User Timing + Performance Timeline only (no Profiler, Measure Memory or
// exporters). The types are the full entry's, without the memory methods on `performance`.
import type { Performance as FullPerformance } from './index.js';
export type {
  PerformanceMarkOptions, PerformanceMeasureOptions, PerformanceEntryList,
  PerformanceObserverInit, PerformanceObserverCallbackOptions, PerformanceObserverCallback,
  InstallResult,
} from './index.js';
export {
  PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver,
  PerformanceObserverEntryList, setBufferLimit, droppedEntries, install,
} from './index.js';
export type Performance = Omit<FullPerformance, 'measureUserAgentSpecificMemory' | 'measureMemory'>;
export declare const performance: Performance;
export default performance;
