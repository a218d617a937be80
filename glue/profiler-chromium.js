// The Chromium sample source: the browser's native Profiler (JS Self-Profiling, allowed by the
// `Document-Policy: js-profiling` response header), whose trace is re-encoded by the core so that
// it has exactly the shape, invariants and helpers (merge, export) of every other perfshim trace.
export const PERFSHIM_PROFILER = Symbol.for('perfshim.Profiler');

// Captured before perfshim/auto installs its own Profiler over the global.
const candidate = globalThis.Profiler;
export const NativeProfiler = typeof candidate === 'function' && !candidate[PERFSHIM_PROFILER] ? candidate : null;

export class NativeSampler {
  constructor(codec, h, intervalMs, maxBufferSize, onFull) {
    this.codec = codec;
    this.h = h;
    // Throws the native NotAllowedError without the document policy; the caller maps it.
    this.native = new NativeProfiler({ sampleInterval: intervalMs, maxBufferSize });
    this.intervalMs = this.native.sampleInterval;
    this.closed = false;
    this.native.addEventListener('samplebufferfull', () => {
      if (this.closed) return;
      // The draft moves the session to stopped here; Chromium keeps its profiler running (it
      // only stops recording), so stop it ourselves and drop its trace.
      this.close();
      onFull();
    });
  }

  /** Stop sampling; resolves once the native trace (samples up to `until`) is in the core. */
  async stop(until) {
    this.closed = true;
    const trace = await this.native.stop();
    this.codec.importTrace(this.h, trace, until);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.native.stop().catch(() => {});
  }
}

export const chromiumSource = NativeProfiler ? {
  name: 'chromium-native',
  // The native profiler picks its own interval (Chromium: multiples of 10 ms); it is read back
  // from the native object once it exists.
  supportedIntervalMs: null,
  start(codec, h, intervalMs, maxBufferSize, onFull) {
    return new NativeSampler(codec, h, intervalMs, maxBufferSize, onFull);
  },
} : null;
