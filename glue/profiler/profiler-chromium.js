// The Chromium sample source: the browser's native Profiler (JS Self-Profiling, allowed by the
// `Document-Policy: js-profiling` response header), whose trace is re-encoded by the core so that
// it has exactly the shape, invariants and exporters of every other perfshim trace.
//
// Chromium caps a native trace at maxBufferSize samples but neither fires samplebufferfull nor
// stops (checked with Chromium 156: `stopped` stays false and stop() resolves with the capped
// trace). To give the draft's behaviour everywhere, the session runs in chunks as in Node: when
// the buffer should be full (1.25 × maxBufferSize × interval after the last chunk), a new native profiler
// starts before the old one stops (no gap; the overlap is dropped by timestamp) and the old trace
// is folded into ours; once maxBufferSize samples are in, the session stops and fires the event.
import { ChunkedSampler } from './sampler.js';
// (captured by host.js before perfshim installs its own Profiler over the global)
import { NativeProfiler } from '../host/native.js';

class NativeSampler extends ChunkedSampler {
  startChunk() {
    // Throws the native NotAllowedError without the document policy; the caller maps it.
    const native = new NativeProfiler({ sampleInterval: this.intervalMs, maxBufferSize: this.max });
    // The session's interval is the native one (read before the first look is scheduled).
    this.intervalMs = native.sampleInterval;
    // Should a Chromium fire the native event, it means the same as our check.
    native.addEventListener('samplebufferfull', () => {
      if (native === this.chunk) this.check();
    });
    return native;
  }

  stopChunk(chunk) {
    return chunk.stop();
  }

  importChunk(trace, chunk, until) {
    this.codec.importTrace(this.h, trace, until, this.last, undefined, true);
  }

  discardChunk(chunk) {
    chunk.stop().catch(() => {});
  }
}

// The native profiler picks its own interval (Chromium: the next multiple of 10 ms); the sampler
// reads it back from each native object.
export const chromiumSource = NativeProfiler ? NativeSampler.source('chromium-native', null) : null;
