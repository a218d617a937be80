import type { ProfilerTrace, PerformanceEntry } from '../index.js';

/** Options of toPprof. */
export interface PprofOptions {
  /** Marks (comments) and measures (sample labels `measure=<name>`), e.g. performance.getEntries(). */
  entries?: Iterable<Pick<PerformanceEntry, 'entryType' | 'name' | 'startTime' | 'duration'>>;
  /** ms since the epoch of the trace's clock (default performance.timeOrigin). */
  timeOrigin?: number;
  /** The sampling period in ms (default the mean sample interval). */
  interval?: number;
}

/** A ProfilerTrace as gzipped pprof profile.proto bytes (go tool pprof, Pyroscope, Grafana). */
export function toPprof(trace: ProfilerTrace, options?: PprofOptions): Uint8Array;
