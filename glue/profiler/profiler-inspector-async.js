// The Bun and Deno sample source: the runtime's own sampler (Bun: JavaScriptCore's, Deno: V8's)
// through its `node:inspector` session, whose Profiler domain gives V8 CPU profiles. Unlike
// Node's, both answer asynchronously (the callbacks run in a later task), and Bun has one
// profiler per thread (a second session's start ends the first's; its interval cannot change
// while it runs). So each thread has one hub: one session, at most one running profile, at the
// smallest interval its members asked for. A member (a chunk of a perfshim session, sampler.js)
// joins, and when it leaves the hub stops the profile, hands it to every member that was there,
// and starts the next one for those that remain; a member keeps the samples from its join on,
// at its own interval (a sample at least that long after the one it kept before).
//
// Where each runtime differs:
// - Deno dispatches the commands on its event loop: a profile starts at the next task, so the
//   synchronous code right after `new Profiler()` is not sampled. Its profile times are V8's
//   (monotonic µs): a `performance.now()` evaluated just before `Profiler.stop` maps endTime.
// - Bun runs the commands at once (only the answers wait); its profile times are epoch µs on
//   the clock of performance.timeOrigin, and it has no Runtime.evaluate.

import { domException } from '../host/errors.js';
import { nativeNow, runtime } from '../host/host.js';
import { ChunkedSampler } from './sampler.js';
import { supportedIntervalMs } from './profiler-node.js';

const CONTEXT = "perfshim profiler (the runtime's inspector)";

function inspectorApi() {
  try {
    const m = globalThis.process?.getBuiltinModule?.('node:inspector');
    return typeof m?.Session === 'function' ? m : null;
  } catch {
    return null;
  }
}

/** What the inspector answered with an error, as the spec's exception (stop() rejects with it). */
const refused = (method, e) => {
  const err = domException(
    'NotAllowedError',
    `${CONTEXT}: ${method} failed: ${e?.message || e}. Another profiler of this ${runtime} thread (--cpu-prof, a debugger) may be running.`,
  );
  err.cause = e;
  return err;
};

class Hub {
  session = null;
  members = new Set();
  us = 0; // the running profile's interval (µs), 0 when none runs
  part = null; // {members, profile: a promise of {profile, offset}} of the running profile

  post(method, params) {
    // Deno does not count a pending inspector answer as work: a timer keeps the process alive
    // until it comes (a script's last `await profiler.stop()` would otherwise end it).
    const keep = setTimeout(() => {}, 0x7fffffff);
    return new Promise((resolve, reject) =>
      this.session.post(method, params, (e, r) => {
        clearTimeout(keep);
        e ? reject(refused(method, e)) : resolve(r);
      }),
    );
  }

  /** Add a member; restarts the profile when the member needs a smaller interval. */
  join(m) {
    if (!this.session) {
      const inspector = inspectorApi();
      if (!inspector)
        throw domException('NotAllowedError', `${CONTEXT}: this ${runtime} has no node:inspector`);
      this.session = new inspector.Session();
      this.session.connect();
      this.enabled = this.post('Profiler.enable');
      this.enabled.catch(() => {});
    }
    this.members.add(m);
    m.parts = [];
    if (!this.us || m.us < this.us) this.cycle();
    else this.part.members.add(m);
  }

  /** Remove a member: a promise of the profiles it was there for (each {profile, offset}). */
  leave(m) {
    this.members.delete(m);
    this.cycle();
    return Promise.all(m.parts);
  }

  /** Stop the running profile (its samples go to the members that were there), then start the
   *  next one at the smallest interval of the members left, if any. */
  cycle() {
    if (this.part) {
      const before = runtime === 'deno' ? this.evaluateNow() : null;
      const stopped = this.post('Profiler.stop');
      const us = this.us;
      const clocked = Promise.all([stopped, before]).then(([{ profile }, t]) => ({
        profile,
        us,
        // Deno: V8's endTime is taken as stop begins, right after the evaluation; Bun: epoch µs.
        offset: t === null ? performance.timeOrigin : profile.endTime / 1000 - t,
      }));
      clocked.catch(() => {});
      for (const m of this.part.members) m.parts.push(clocked);
      this.part = null;
      this.us = 0;
    }
    if (!this.members.size) return;
    this.us = Math.min(...[...this.members].map((m) => m.us));
    this.post('Profiler.setSamplingInterval', { interval: this.us }).catch(() => {});
    const started = this.post('Profiler.start');
    started.catch(() => {});
    this.part = { members: new Set(this.members) };
    // A profile that did not start makes its members' stop() reject with the reason.
    for (const m of this.part.members) m.parts.push(started.then(() => null));
  }

  /** performance.now() at the moment the next command runs (Deno: on its event loop). */
  evaluateNow() {
    return this.post('Runtime.evaluate', {
      expression: 'performance.now()',
      returnByValue: true,
    }).then(({ result }) => (typeof result?.value === 'number' ? result.value : null));
  }
}

let hub;

/** A running sampler for one profiling session: its chunks are hub members. */
class AsyncInspectorSampler extends ChunkedSampler {
  kept = -Infinity; // the last sample kept (performance.now() time)

  startChunk() {
    hub ||= new Hub();
    const m = { us: Math.round(this.intervalMs * 1000), startNow: nativeNow(), parts: [] };
    hub.join(m);
    return m;
  }

  stopChunk(chunk) {
    return hub.leave(chunk);
  }

  importChunk(parts, chunk, until) {
    for (const part of parts) {
      if (!part) continue;
      const after = Math.max(this.last, chunk.startNow);
      const sub = this.subsample(part.profile, part.us / 1000, part.offset, after);
      this.codec.importV8(this.h, sub, part.offset, this.last, until, CONTEXT);
      this.last = this.codec.info(this.h).last;
    }
  }

  /** The profile with only the samples after `after` at least this session's interval apart
   *  (the hub's profile may run at a smaller one, `step` ms; half of it is the tolerance). */
  subsample(p, step, offset, after) {
    const { samples, timeDeltas } = p;
    const gap = this.intervalMs - step / 2;
    const keptIds = [],
      keptDeltas = [];
    let t = p.startTime,
      prev = p.startTime;
    for (let i = 0; i < samples.length; i++) {
      t += timeDeltas[i];
      const now = t / 1000 - offset;
      if (now <= after || now - this.kept < gap) continue;
      this.kept = now;
      keptIds.push(samples[i]);
      keptDeltas.push(t - prev);
      prev = t;
    }
    return { nodes: p.nodes, startTime: p.startTime, samples: keptIds, timeDeltas: keptDeltas };
  }

  discardChunk(chunk) {
    hub.leave(chunk).catch(() => {});
  }

  schedule() {
    super.schedule();
    // Deno's timers are numbers that keep the process alive unless unref'd this way.
    if (typeof this.timer === 'number') globalThis.Deno?.unrefTimer?.(this.timer);
  }
}

/** The source for Bun and Deno (profiler.js picks it by runtime). */
export const asyncInspectorSource = AsyncInspectorSampler.source(
  'inspector-async',
  supportedIntervalMs,
);
