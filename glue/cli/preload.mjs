// `perfshim profile`'s preload (node --import), run in the profiled process's main thread and in
// every worker thread started from a file (Node applies --import to those; eval workers and
// workers given their own execArgv run without it). It installs perfshim on the globals (so the
// script's marks and measures land in perfshim's timeline), starts a Profiler, and when the
// thread exits (end of work, process.exit(), an uncaught exception, SIGINT through the default
// below) writes {trace, entries, timeOrigin, ...} as JSON to PERFSHIM_PROFILE_DIR for the CLI.
//
// Exit is synchronous (no promise settles after 'exit'), and Profiler.stop() hands its trace
// over only in a later microtask. So the Profiler is created over a wrapper of this runtime's
// sample source that keeps the session's trace handle and sampler: at exit the sampler is
// stopped and the trace read from the core synchronously, exactly what stop() would resolve.
import { writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import { install, performance } from '../index.js';
import { createProfilerClass, defaultSource } from '../profiler.js';

const dir = process.env.PERFSHIM_PROFILE_DIR;
if (dir) await start();

async function start() {
  const interval = Number(process.env.PERFSHIM_PROFILE_INTERVAL) || 1;
  const maxSamples = Number(process.env.PERFSHIM_PROFILE_MAX_SAMPLES) || 1_000_000;
  const progressFd = isMainThread ? Number(process.env.PERFSHIM_PROFILE_PROGRESS_FD) : NaN;
  install();
  // Node < 20.16 as an ES module loads node:inspector asynchronously: let it arrive.
  await import('node:inspector');
  await null;

  const base = defaultSource();
  let session = null;      // { codec, h, sampler } of the running profile
  let full = null;         // the trace kept when the buffer filled up
  const source = {
    ...base,
    start(codec, h, intervalMs, max, onFull) {
      const s = { codec, h, sampler: null };
      s.sampler = base.start(codec, h, intervalMs, max, () => {
        full = codec.read(h); // the first `max` samples; the Profiler drops the trace next
        session = null;
        onFull();
      });
      session = s;
      return s.sampler;
    },
  };
  const Profiler = createProfilerClass(globalThis[Symbol.for('perfshim.realm')].core, { source });
  const profiler = new Profiler({ sampleInterval: interval, maxBufferSize: maxSamples });
  const started = performance.now();

  let written = false;
  process.on('exit', (code) => {
    if (written) return;
    written = true;
    let trace = full, error;
    try {
      if (session) {
        session.sampler.stop(performance.now());
        trace = session.codec.read(session.h);
      }
    } catch (e) {
      error = String(e && e.stack ? e.stack : e);
    }
    const entries = [];
    for (const e of performance.getEntries()) {
      if (e.entryType !== 'mark' && e.entryType !== 'measure') continue;
      let detail = null;
      try { detail = e.detail === undefined ? null : JSON.parse(JSON.stringify(e.detail)); } catch { /* not JSON */ }
      entries.push({ entryType: e.entryType, name: e.name, startTime: e.startTime, duration: e.duration, detail });
    }
    const out = {
      threadId, isMainThread, code, error,
      name: isMainThread ? 'main' : `worker-${threadId}`,
      url: isMainThread ? (process.argv[1] || '') : '',
      timeOrigin: performance.timeOrigin, interval: profiler.sampleInterval, started,
      bufferFull: full !== null, maxSamples, trace, entries,
    };
    writeFileSync(join(dir, `thread-${threadId}.json`), JSON.stringify(out));
  });

  if (isMainThread) {
    // Ctrl-C: when the script has no SIGINT handler of its own, end it as Node would (exit code
    // 130) but through 'exit', so the profile is written. A script with its own handler decides.
    process.on('SIGINT', function perfshimSigint() {
      if (process.listenerCount('SIGINT') === 1) process.exit(130);
    });
    if (Number.isInteger(progressFd) && progressFd > 2) {
      // The CLI holds Ctrl-C (when forwarding) and --duration until the handler above is set.
      try { writeSync(progressFd, '{"ready":true}\n'); } catch { /* the CLI went away */ }
      const timer = setInterval(() => {
        const elapsed = performance.now() - started;
        const entries = performance.getEntriesByType('mark').length + performance.getEntriesByType('measure').length;
        try {
          writeSync(progressFd, `${JSON.stringify({ elapsed, entries })}\n`);
        } catch {
          clearInterval(timer); // the CLI went away
        }
      }, 250);
      timer.unref();
    }
  }
}
