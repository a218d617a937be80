/** Options of profileVisits(). */
export interface ProfileVisitsOptions {
  /** The collector's URL (`perfshim collect`). */
  endpoint: string;
  /** The share of page views profiled, 0-1 (default 0.01). */
  sampleRate?: number;
  /** Labels sent with every upload (release, ...): names [a-zA-Z_][a-zA-Z0-9_]{0,63}. */
  labels?: Record<string, string>;
  sampleInterval?: number;
  maxBufferSize?: number;
  windowMs?: number;
  slowMs?: number;
  maxWindows?: number;
  maxBytes?: number;
  random?: () => number;
}
export interface VisitStats {
  sampled: boolean;
  windows: number;
  kept: number;
  uploads: number;
  beaconFailures: number;
  errors: number;
  bytes: number;
  stride: number;
  encodeMs: number;
}
export interface VisitControl {
  stats: VisitStats;
  flush(): Promise<void>;
  stop(): Promise<void> | void;
}
export function profileVisits(options: ProfileVisitsOptions): VisitControl;
export function autoLabels(global?: typeof globalThis): Record<string, string>;
