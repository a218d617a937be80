// The Chromium sample source: the browser's native Profiler (JS Self-Profiling, allowed by the
// `Document-Policy: js-profiling` response header), whose trace is re-encoded by the core so that
// it has exactly the shape, invariants and helpers (merge, export) of every other perfshim trace.
//
// Chromium caps a native trace at maxBufferSize samples but neither fires samplebufferfull nor
// stops (checked with Chromium 156: `stopped` stays false and stop() resolves with the capped
// trace). To give the draft's behaviour everywhere, the session runs in chunks as in Node: when
// the buffer should be full (1.25 × maxBufferSize × interval after the last chunk), a new native profiler
// starts before the old one stops (no gap; the overlap is dropped by timestamp) and the old trace
// is folded into ours; once maxBufferSize samples are in, the session stops and fires the event.
import { nativeNow } from './host.js';

export const PERFSHIM_PROFILER = Symbol.for('perfshim.Profiler');

// Captured before perfshim/auto installs its own Profiler over the global.
const candidate = globalThis.Profiler;
export const NativeProfiler = typeof candidate === 'function' && !candidate[PERFSHIM_PROFILER] ? candidate : null;

export class NativeSampler {
  constructor(codec, h, intervalMs, maxBufferSize, onFull) {
    this.codec = codec;
    this.h = h;
    this.max = maxBufferSize;
    this.onFull = onFull;
    // Throws the native NotAllowedError without the document policy; the caller maps it.
    this.chunk = this.startChunk(intervalMs);
    this.intervalMs = this.chunk.sampleInterval;
    this.chunks = 1;
    this.handoverMs = 0;
    this.last = -Infinity;
    this.pending = Promise.resolve();
    this.error = null;
    this.timer = null;
    this.schedule();
  }

  startChunk(intervalMs) {
    const native = new NativeProfiler({ sampleInterval: intervalMs, maxBufferSize: this.max });
    // Should a Chromium fire the native event, it means the same as our check below.
    native.addEventListener('samplebufferfull', () => { if (native === this.chunk) this.check(); });
    return native;
  }

  schedule() {
    // As in Node: a quarter later than the buffer could be full, and never more often than
    // every 10 hand-over times.
    const left = this.max - this.codec.info(this.h).samples;
    const ms = Math.min(Math.max(left * this.intervalMs * 1.25, 10 * this.handoverMs, 1), 0x7fffffff);
    this.timer = setTimeout(() => this.check(), ms);
  }

  fold(trace, until) {
    this.codec.importTrace(this.h, trace, until, this.last);
    this.last = this.codec.lastTimestamp(this.h);
  }

  /** The buffer may be full: hand over to a new native profiler, fold the old trace, decide. */
  check() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.chunk) return;
    const old = this.chunk;
    let t0 = nativeNow();
    this.chunk = this.startChunk(this.intervalMs);
    this.chunks++;
    this.handoverMs = nativeNow() - t0;
    this.pending = this.pending.then(async () => {
      const trace = await old.stop();
      t0 = nativeNow();
      this.fold(trace, Infinity);
      this.handoverMs += nativeNow() - t0;
      if (!this.chunk) return; // stopped meanwhile
      if (this.codec.info(this.h).samples >= this.max) {
        this.close();
        this.onFull();
      } else {
        this.schedule();
      }
    }).catch((e) => {
      // Nothing to throw to from a timer: stop sampling and let stop() reject with it.
      this.error = e;
      this.close();
    });
  }

  /** Stop sampling; resolves once every sample up to `until` is in the core. */
  async stop(until) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const chunk = this.chunk;
    this.chunk = null;
    await this.pending;
    if (this.error) throw this.error;
    if (chunk) this.fold(await chunk.stop(), until);
  }

  close() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const chunk = this.chunk;
    this.chunk = null;
    if (chunk) chunk.stop().catch(() => {});
  }
}

export const chromiumSource = NativeProfiler ? {
  name: 'chromium-native',
  // The native profiler picks its own interval (Chromium: the next multiple of 10 ms); it is
  // read back from the native object once it exists.
  supportedIntervalMs: null,
  start(codec, h, intervalMs, maxBufferSize, onFull) {
    return new NativeSampler(codec, h, intervalMs, maxBufferSize, onFull);
  },
} : null;
