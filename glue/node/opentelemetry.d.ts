import type { Tracer } from '@opentelemetry/api';
import type { PerformanceMeasure } from '../index.js';

export interface TraceMeasuresOptions {
  /** Default: trace.getTracer('perfshim'). */
  tracer?: Tracer;
  /** Only measures whose name starts with this. */
  prefix?: string;
  /** Only measures this accepts. */
  filter?: (entry: PerformanceMeasure) => boolean;
  /** Marks as events on the active span (default true). */
  marks?: boolean;
  /** ms since the epoch of performance.now()'s zero (default performance.timeOrigin). */
  timeOrigin?: number;
}

/** Measures become spans, marks events on the active span; returns stop(). */
export function traceMeasures(options?: TraceMeasuresOptions): () => void;
/** ms since the epoch -> OpenTelemetry HrTime [seconds, nanoseconds]. */
export function epochHrTime(timeOrigin: number, ms: number): [number, number];
/** A measure's detail as OpenTelemetry attributes. */
export function flattenDetail(detail: unknown): Record<string, string | number | boolean | Array<string | number | boolean>>;
