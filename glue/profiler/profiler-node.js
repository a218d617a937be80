// The Node sample source: V8's own CPU sampler, driven through an in-process `node:inspector`
// session per profiler (Profiler domain). V8 gives each inspector session its own CpuProfiler,
// so several perfshim profilers, and a user's own inspector sessions, run side by side without
// seeing each other's settings. Works on the main thread and in worker_threads (the session
// connects to the thread it is created on).
//
// Samples are handed over only when a V8 profile stops, so a session may run in chunks: when the
// sample buffer should be full (1.25 × maxBufferSize × interval after the last chunk), a new
// chunk starts on a fresh session before the old one stops (no gap; the overlap is dropped by
// timestamp), the old chunk is folded into the trace, and if the buffer is full the session
// stops there (the new chunk is discarded) and fires samplebufferfull.

import { domException } from '../host/errors.js';
import { nativeNow } from '../host/host.js';
import { isNode } from '../host/native.js';
import { ChunkedSampler } from './sampler.js';

// node:inspector (with worker_threads and streams behind it) costs ~6 ms to load: it is loaded
// when the first profiler starts, not when perfshim is imported.
// Node 18 to 20.15 as an ES module has no synchronous way to load a builtin: there it is
// fetched asynchronously at import (ready a few milliseconds later), the only case that pays
// the cost up front.
// (A real `require` has `resolve`; a bundler's stand-in in an ES module, such as esbuild's
// __require, is a function that throws "Dynamic require" and has none.)
const syncBuiltins =
  isNode &&
  (typeof process.getBuiltinModule === 'function' ||
    (typeof require === 'function' && typeof require.resolve === 'function'));
let inspectorModule;
if (isNode && !syncBuiltins) {
  import('node:inspector').then(
    (m) => (inspectorModule = m.default || m),
    () => (inspectorModule = null),
  );
}
/** node:inspector, synchronously (ESM on Node >= 20.16 / 22.3, or CommonJS); null without it. */
function inspectorApi() {
  if (inspectorModule === undefined && syncBuiltins) {
    try {
      inspectorModule = process.getBuiltinModule
        ? process.getBuiltinModule('node:inspector')
        : require('node:inspector');
    } catch {
      inspectorModule = null;
    }
  }
  return inspectorModule;
}

// V8's sampler takes whole microseconds. It accepts smaller values, but 0 silently means its
// default and below ~100 µs its thread cannot keep the pace (measured: ~4,700 samples/s asked
// for 10,000/s), so 100 µs is the smallest interval this source offers.
const MIN_INTERVAL_US = 100;

// The protocol's interval is an int32 of µs, so about 35 minutes is the largest.
const MAX_INTERVAL_US = 0x7fffffff;

/** The interval this source uses for a requested one (ms): the next whole µs, within
 *  [0.1 ms, MAX_INTERVAL_US]. */
export function supportedIntervalMs(ms) {
  const us = Math.ceil(ms * 1000 - 1e-6);
  return Math.min(MAX_INTERVAL_US, Math.max(MIN_INTERVAL_US, us)) / 1000;
}

// performance.now() and V8's profile clock (base::TimeTicks) are both the monotonic clock on
// Linux, macOS and Windows (libuv's hrtime reads the same source), so V8 µs map onto
// performance.now() by a constant: now = us / 1000 - offset. Measured per thread, since
// performance.now() in a worker counts from the worker's own time origin.
let clockOffset;
function offsetMs() {
  if (clockOffset === undefined) {
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const a = process.hrtime.bigint();
      const now = nativeNow();
      const b = process.hrtime.bigint();
      const span = Number(b - a);
      if (span < best) {
        best = span;
        clockOffset = Number((a + b) / 2n) / 1e6 - now;
      }
    }
  }
  return clockOffset;
}

function post(session, method, params) {
  let error, result;
  session.post(method, params, (e, r) => {
    error = e;
    result = r;
  });
  if (error) throw error;
  if (result === undefined)
    throw new Error(`perfshim: inspector did not answer ${method} synchronously`);
  return result;
}

/**
 * A running sampler for one profiling session (sampler.js): chunks are V8 profiles, each on its
 * own inspector session. Hand-overs are worth avoiding: restarting V8's profiler re-logs the
 * compiled code (tens of ms in a big program), and V8 does not attribute code it optimized
 * on-stack while an earlier profiler ran, so a hot loop can lose its frame in later chunks. V8
 * samples a little below the nominal rate, so the first look usually finds the buffer full and
 * no hand-over happens at all. `intervalMs` must be one supportedIntervalMs returned.
 */
class NodeSampler extends ChunkedSampler {
  /** One V8 profile on its own session. */
  startChunk() {
    const inspector = inspectorApi();
    if (!inspector || typeof inspector.Session !== 'function') {
      // The Profiler constructor turns this into its NotAllowedError.
      throw domException(
        'NotAllowedError',
        inspectorModule === undefined
          ? 'node:inspector is still loading (Node < 20.16 as an ES module): start the profiler after the first await'
          : 'this Node has no node:inspector (built without the inspector)',
      );
    }
    const session = new inspector.Session();
    session.connect();
    try {
      post(session, 'Profiler.enable');
      const interval = Math.round(this.intervalMs * 1000); // µs
      post(session, 'Profiler.setSamplingInterval', { interval });
      const startNow = nativeNow();
      post(session, 'Profiler.start');
      return { session, startNow };
    } catch (e) {
      session.disconnect();
      throw e;
    }
  }

  stopChunk(chunk) {
    try {
      return post(chunk.session, 'Profiler.stop').profile;
    } finally {
      chunk.session.disconnect();
    }
  }

  importChunk(profile, chunk, until) {
    let offset = offsetMs();
    // Guard the clock assumption: the profile must start between our start call and now.
    const startMs = profile.startTime / 1000 - offset;
    if (!(startMs >= chunk.startNow - 1 && startMs <= nativeNow() + 1))
      offset = profile.startTime / 1000 - chunk.startNow;
    this.codec.importV8(this.h, profile, offset, this.last, until);
  }

  discardChunk(chunk) {
    try {
      chunk.session.disconnect();
    } catch {
      /* already gone */
    }
  }
}

// Whether the inspector is compiled in is checked when a profiler starts.
export const nodeSource = isNode ? NodeSampler.source('node-inspector', supportedIntervalMs) : null;
