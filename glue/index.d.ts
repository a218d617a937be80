// Type declarations for perfshim (the ponyfill entry). The interfaces follow the WebIDL of
// User Timing 3 and Performance Timeline 2; they match lib.dom.d.ts where both exist.

export interface PerformanceEntry {
  readonly name: string;
  readonly entryType: string;
  readonly startTime: number;
  readonly duration: number;
  /** Present where the host's own entries have it (Chromium). */
  readonly navigationId?: number | null;
  toJSON(): Record<string, unknown>;
}
export declare const PerformanceEntry: {
  prototype: PerformanceEntry;
  [Symbol.hasInstance](value: unknown): value is PerformanceEntry;
};

export interface PerformanceMarkOptions { detail?: unknown; startTime?: number }
export interface PerformanceMeasureOptions {
  detail?: unknown;
  start?: string | number;
  duration?: number;
  end?: string | number;
}

export interface PerformanceMark extends PerformanceEntry { readonly detail: unknown }
export declare const PerformanceMark: {
  prototype: PerformanceMark;
  new (markName: string, markOptions?: PerformanceMarkOptions): PerformanceMark;
};
export interface PerformanceMeasure extends PerformanceEntry { readonly detail: unknown }
export declare const PerformanceMeasure: { prototype: PerformanceMeasure };

export type PerformanceEntryList = PerformanceEntry[];

export interface PerformanceObserverEntryList {
  getEntries(): PerformanceEntryList;
  getEntriesByType(type: string): PerformanceEntryList;
  getEntriesByName(name: string, type?: string): PerformanceEntryList;
}
export declare const PerformanceObserverEntryList: { prototype: PerformanceObserverEntryList };

export interface PerformanceObserverInit { entryTypes?: string[]; type?: string; buffered?: boolean }
export interface PerformanceObserverCallbackOptions { droppedEntriesCount?: number }
export type PerformanceObserverCallback = (
  entries: PerformanceObserverEntryList,
  observer: PerformanceObserver,
  options: PerformanceObserverCallbackOptions,
) => void;

export interface PerformanceObserver {
  observe(options?: PerformanceObserverInit): void;
  disconnect(): void;
  takeRecords(): PerformanceEntryList;
}
export declare const PerformanceObserver: {
  prototype: PerformanceObserver;
  new (callback: PerformanceObserverCallback): PerformanceObserver;
  readonly supportedEntryTypes: readonly string[];
};

export interface MemoryAttributionContainer { id: string; src: string }
export interface MemoryAttribution { url: string; container?: MemoryAttributionContainer; scope: string }
export interface MemoryBreakdownEntry { bytes: number; attribution: MemoryAttribution[]; types: string[] }
export interface MemoryMeasurement { bytes: number; breakdown: MemoryBreakdownEntry[] }

export interface Performance extends EventTarget {
  measureUserAgentSpecificMemory(): Promise<MemoryMeasurement>;
  /** The older draft's name of measureUserAgentSpecificMemory. */
  measureMemory(): Promise<MemoryMeasurement>;
  readonly timeOrigin: number;
  now(): number;
  toJSON(): Record<string, unknown>;
  mark(markName: string, markOptions?: PerformanceMarkOptions): PerformanceMark;
  measure(measureName: string, startOrMeasureOptions?: string | PerformanceMeasureOptions, endMark?: string): PerformanceMeasure;
  clearMarks(markName?: string): void;
  clearMeasures(measureName?: string): void;
  getEntries(): PerformanceEntryList;
  getEntriesByType(type: string): PerformanceEntryList;
  getEntriesByName(name: string, type?: string): PerformanceEntryList;
}
export declare const performance: Performance;
export default performance;

/** Cap the 'mark' or 'measure' buffer (0 = unbounded, the default). Entries past the cap are
 *  dropped and counted. */
export declare function setBufferLimit(type: 'mark' | 'measure', maxEntries: number): void;
/** Entries of `type` dropped because its capped buffer was full. */
export declare function droppedEntries(type: string): number;

export interface InstallResult { installed: string[]; reasons: Record<string, string[]> }
/** Install perfshim on the globals: what is missing or non-conforming, or everything with
 *  `force`. */
export declare function install(options?: { force?: boolean }): InstallResult;

export interface ProfilerInitOptions { sampleInterval: number; maxBufferSize: number }
export interface ProfilerFrame { name: string; resourceId?: number; line?: number; column?: number }
export interface ProfilerStack { parentId?: number; frameId: number }
export type ProfilerMarker = 'script' | 'gc' | 'style' | 'layout' | 'paint' | 'other';
export interface ProfilerSample { timestamp: number; stackId?: number; marker?: ProfilerMarker }
export interface ProfilerTrace { resources: string[]; frames: ProfilerFrame[]; stacks: ProfilerStack[]; samples: ProfilerSample[] }
/** JS Self-Profiling. Node: V8's sampler through node:inspector; Chromium: the native Profiler
 *  (Document-Policy: js-profiling); other pages and workers: the instrumentation source (code
 *  built through perfshim's transform); elsewhere the constructor throws NotAllowedError. A full
 *  buffer fires samplebufferfull once; stop() then resolves with the capped trace. */
export declare class Profiler extends EventTarget {
  constructor(options: ProfilerInitOptions);
  readonly sampleInterval: number;
  readonly stopped: boolean;
  onsamplebufferfull: ((this: Profiler, ev: Event) => unknown) | null;
  stop(): Promise<ProfilerTrace>;
}

/** A Chrome DevTools / V8 .cpuprofile (the DevTools protocol's Profiler.Profile). Times in µs. */
export interface CpuProfileCallFrame { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number }
export interface CpuProfileNode { id: number; callFrame: CpuProfileCallFrame; hitCount?: number; children?: number[]; parent?: number }
export interface CpuProfile { nodes: CpuProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }
/** One Chrome trace event (the Trace Event Format); ts in µs since the time origin. */
export interface TraceEvent { name: string; ph: string; cat?: string; pid: number; tid: number; ts: number; id?: string; s?: string; args?: Record<string, unknown> }
export interface TraceEventsFile { traceEvents: TraceEvent[] }
export interface TraceEventsOptions {
  /** PerformanceEntry-like objects (e.g. performance.getEntries()): marks and measures go in. */
  entries?: Iterable<{ name: string; entryType: string; startTime: number; duration: number; detail?: unknown }>;
  pid?: number;
  tid?: number;
}
/** speedscope's file format (https://www.speedscope.app/file-format-schema.json). */
export interface SpeedscopeFile {
  $schema: 'https://www.speedscope.app/file-format-schema.json';
  shared: { frames: { name: string; file?: string; line?: number; col?: number }[] };
  profiles: { type: 'sampled'; name: string; unit: 'milliseconds'; startValue: number; endValue: number; samples: number[][]; weights: number[] }[];
  name: string;
  activeProfileIndex: number;
  exporter: string;
}
/** A ProfilerTrace as a .cpuprofile object (0-based positions, µs). Throws TypeError for what is not a trace. */
export declare function toCpuProfile(trace: ProfilerTrace): CpuProfile;
/** A ProfilerTrace and the marks/measures of `options.entries` as Chrome trace-event JSON. */
export declare function toTraceEvents(trace: ProfilerTrace, options?: TraceEventsOptions): TraceEventsFile;
/** A ProfilerTrace as a speedscope file. */
export declare function toSpeedscope(trace: ProfilerTrace, options?: { name?: string }): SpeedscopeFile;
/** The Firefox Profiler's processed profile format, version 58 (one thread; tables as structs of arrays). */
export interface FirefoxProfile {
  meta: { interval: number; startTime: number; product: string; version: number; preprocessedProfileVersion: number; [key: string]: unknown };
  libs: unknown[];
  shared: { stringArray: string[]; sources: { uuid: (string | null)[]; filename: number[]; length: number } };
  threads: Record<string, unknown>[];
}
/** A ProfilerTrace as a Firefox Profiler processed profile. timeOrigin: ms since the epoch
 *  (meta.startTime); interval: ms (default: the mean sample interval). */
export declare function toFirefoxProfile(trace: ProfilerTrace, options?: { name?: string; timeOrigin?: number; interval?: number }): FirefoxProfile;
/** A .cpuprofile (object or JSON text) as a ProfilerTrace; sample times are µs / 1000 - offsetMs. */
export declare function fromCpuProfile(profile: CpuProfile | string, options?: { offsetMs?: number }): ProfilerTrace;
