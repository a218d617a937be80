// The chunked sampler both host sample sources share (profiler-node.js: V8 through
// node:inspector; profiler-chromium.js: Chromium's native Profiler). Neither host fires "sample
// buffer full" the way the draft says, so a session runs in chunks: when the buffer could be
// full, a new chunk starts before the old one stops (no gap; the overlap is dropped by
// timestamp), the old chunk's samples are folded into the session's trace in the core, and once
// maxBufferSize samples are in, the session stops and calls onFull(). A subclass says how a
// chunk starts (startChunk), stops (stopChunk: its result, or a promise of it), is folded
// (importChunk) and is dropped unread (discardChunk); the source's start() constructs it and
// starts the first chunk.
import { nativeNow } from '../host/host.js';

const isPromise = (v) => v !== null && typeof v === 'object' && typeof v.then === 'function';
/** f(v), or a promise of it when v is a promise. */
const then = (v, f) => (isPromise(v) ? v.then(f) : f(v));

export class ChunkedSampler {
  /** The sample source (profiler.js) whose start() runs this subclass. */
  static source(name, supportedIntervalMs) {
    return { name, supportedIntervalMs, start: (...args) => new this(...args).begin() };
  }

  last = -Infinity; // timestamp of the last sample folded into the trace
  error = null; // a failure while handing over, reported by stop()
  chunk = null;
  chunks = 0; // chunks started so far (handovers + 1)
  handoverMs = 0; // how long the last hand-over blocked the thread
  timer = null;
  pending = Promise.resolve(); // asynchronous folds, in chunk order
  chained = false; // whether a fold went through `pending`

  constructor(codec, h, intervalMs, max, onFull) {
    Object.assign(this, { codec, h, intervalMs, max, onFull });
    // A host profiler samples perfshim's own code too (the Profiler's start and stop, a chunk's
    // hand-over): the trace leaves it out, as a native Profiler shows no frames of its own.
    codec.hideOwn(h);
  }

  /** Start the first chunk; returns this. */
  begin() {
    this.chunk = this.startChunk();
    this.chunks = 1;
    this.schedule();
    return this;
  }

  schedule() {
    // When to look: a quarter later than the buffer could be full at the nominal rate, and never
    // more often than every 10 hand-over times (a hand-over is worth avoiding: see the sources).
    // The trace stays exact either way (it keeps the first maxBufferSize samples); only the
    // event comes later.
    const left = this.max - this.codec.info(this.h).samples;
    const ms = Math.min(
      Math.max(left * this.intervalMs * 1.25, 10 * this.handoverMs, 1),
      0x7fffffff,
    );
    this.timer = setTimeout(() => this.check(), ms);
    if (typeof this.timer.unref === 'function') this.timer.unref();
  }

  /** Fold a stopped chunk's samples (at most `until`) into the trace. */
  fold(result, chunk, until) {
    this.importChunk(result, chunk, until);
    this.last = this.codec.info(this.h).last;
  }

  /** The buffer may be full: hand over to a new chunk, fold the old one, and decide. A chunk
   *  that stops synchronously (V8's) is folded at once; one that stops asynchronously
   *  (Chromium's) is folded in order after the ones before it. */
  check() {
    this.clearTimer();
    if (!this.chunk) return;
    const old = this.chunk;
    let blocked = nativeNow();
    const after = (result) => {
      const t0 = nativeNow();
      this.fold(result, old, Infinity);
      this.handoverMs = blocked + nativeNow() - t0;
      if (!this.chunk) return; // stopped meanwhile
      if (this.codec.info(this.h).samples >= this.max) {
        // §take a sample step 1: the next sample finds the buffer full.
        this.close();
        this.onFull();
      } else {
        this.schedule();
      }
    };
    let stopped;
    try {
      this.chunk = this.startChunk(); // before the old one stops: no gap
      this.chunks++;
      stopped = this.stopChunk(old);
      blocked = nativeNow() - blocked;
      if (!isPromise(stopped)) return after(stopped);
    } catch (e) {
      return this.fail(e);
    }
    this.chained = true;
    this.pending = this.pending
      .then(() => stopped)
      .then(after)
      .catch((e) => this.fail(e));
  }

  /** Nothing to throw to from a timer: stop sampling and let stop() reject with `e`. */
  fail(e) {
    this.error = e;
    this.close();
  }

  /** Stop sampling and fold every sample up to `until` (performance.now() time): synchronously
   *  when the chunks stop synchronously (a Node exit handler relies on it), else a promise. */
  stop(until) {
    this.clearTimer();
    const chunk = this.chunk;
    this.chunk = null;
    const finish = () => {
      if (this.error) throw this.error;
      return chunk && then(this.stopChunk(chunk), (result) => this.fold(result, chunk, until));
    };
    return this.chained ? this.pending.then(finish) : finish();
  }

  clearTimer() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  close() {
    this.clearTimer();
    const chunk = this.chunk;
    this.chunk = null;
    if (chunk) this.discardChunk(chunk);
  }
}
