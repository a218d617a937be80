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
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, isMainThread, threadId } from 'node:worker_threads';
import { install, performance } from '../index.js';
import { createProfilerClass, defaultSources } from '../profiler/profiler.js';

const dir = process.env.PERFSHIM_PROFILE_DIR;
// The process the CLI started is the root; Node processes it forks (child_process.fork passes
// --import on) and their workers are profiled too, under their own names.
if (dir && isMainThread && !process.env.PERFSHIM_PROFILE_ROOT)
  process.env.PERFSHIM_PROFILE_ROOT = String(process.pid);
const isRoot = process.env.PERFSHIM_PROFILE_ROOT === String(process.pid);
const progressFd = isRoot && isMainThread ? Number(process.env.PERFSHIM_PROFILE_PROGRESS_FD) : NaN;
const thread = isMainThread ? 'main' : `worker-${threadId}`;
const name = isRoot ? thread : `process-${process.pid}-${thread}`;
const file = () => join(dir, `thread-${process.pid}-${threadId}.json`);
/** Which thread a profile file is of. */
const who = { pid: process.pid, isRoot, threadId, isMainThread, name };

/** Write this thread's profile for the CLI. The script may have removed the directory: then
 *  the profile is lost, said so on stderr, and the script's own exit code stays. */
function save(profile) {
  try {
    writeFileSync(file(), JSON.stringify(profile));
  } catch (e) {
    try {
      writeSync(
        2,
        `perfshim: the profile of ${name} could not be written (${e.code || e.message}: was ${dir} removed?); it is lost\n`,
      );
    } catch {
      /* no stderr either */
    }
  }
}

/** A line to the CLI (main thread only; nothing when the CLI went away). */
function tell(message) {
  if (!Number.isInteger(progressFd) || progressFd <= 2) return false;
  try {
    writeSync(progressFd, `${JSON.stringify(message)}\n`);
    return true;
  } catch {
    return false;
  }
}

if (dir) {
  try {
    await start();
  } catch (e) {
    // The script still runs, unprofiled; the CLI reports why.
    save({ ...who, error: String(e && e.stack ? e.stack : e), trace: null, entries: [] });
  } finally {
    // The CLI holds Ctrl-C (when forwarding) and --duration until this thread's set-up is done.
    tell({ ready: true });
  }
}

async function start() {
  const interval = Number(process.env.PERFSHIM_PROFILE_INTERVAL) || 1;
  const maxSamples = Number(process.env.PERFSHIM_PROFILE_MAX_SAMPLES) || 1_000_000;
  install();
  // Node < 20.16 as an ES module loads node:inspector asynchronously: let it arrive.
  await import('node:inspector');
  await null;

  const base = defaultSources()[0];
  let session = null; // { codec, h, sampler } of the running profile
  let full = null; // the trace kept when the buffer filled up
  const source = {
    ...base,
    start(codec, h, intervalMs, max, onFull) {
      const sampler = base.start(codec, h, intervalMs, max, () => {
        full = codec.read(h); // the first `max` samples; the Profiler drops the trace next
        session = null;
        onFull();
      });
      session = { codec, h, sampler };
      return sampler;
    },
  };
  const Profiler = createProfilerClass(globalThis[Symbol.for('perfshim.realm')].core, { source });
  const profiler = new Profiler({ sampleInterval: interval, maxBufferSize: maxSamples });
  const started = performance.now();

  let written = false;
  process.on('exit', () => {
    if (written) return;
    written = true;
    let trace = full,
      error;
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
      try {
        detail = e.detail === undefined ? null : JSON.parse(JSON.stringify(e.detail));
      } catch {
        /* not JSON */
      }
      entries.push({ ...e.toJSON(), detail }); // detail as JSON holds it
    }
    const out = {
      ...who,
      error,
      url: isMainThread ? process.argv[1] || '' : '',
      timeOrigin: performance.timeOrigin,
      interval: profiler.sampleInterval,
      bufferFull: full !== null,
      maxSamples,
      trace,
      entries,
    };
    save(out);
  });

  if (isMainThread) {
    // Ctrl-C: when the script has no SIGINT handler of its own, end it as Node would (exit code
    // 130) but through 'exit', so the profile is written. A script with its own handler decides.
    const onStop = function perfshimSigint() {
      if (process.listenerCount('SIGINT') === 1) process.exit(130);
    };
    process.on('SIGINT', onStop);
    if (isRoot) stopFromOutside(onStop);
    const live = isRoot ? liveSampleCount(() => session && session.sampler.chunk) : null;
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      const entries =
        performance.getEntriesByType('mark').length +
        performance.getEntriesByType('measure').length;
      const samples = live ? live.tick() : undefined;
      if (!tell({ elapsed, entries, samples })) {
        clearInterval(timer);
        if (live) live.close();
      }
    }, 250);
    timer.unref();
  }
}

/**
 * Ctrl-C and --duration for a script that never yields: a signal handler in JS runs only when
 * the event loop turns. The CLI also writes a line on the control pipe (fd
 * PERFSHIM_PROFILE_CONTROL_FD); a small eval worker (not profiled: Node gives eval workers no
 * --import) reads it, connects an inspector session to this main thread and evaluates `stop`
 * there: V8 runs a protocol message between two statements of a busy script. `stop` is the
 * SIGINT handler's rule: exit (130, through 'exit', so the profile is written) unless the script
 * handles SIGINT itself. While that session is connected Node prints "Waiting for the debugger
 * to disconnect..." at exit; the line is ours, so the last 'exit' listener points fd 2 at
 * /dev/null first.
 */
function stopFromOutside(stop) {
  const fd = Number(process.env.PERFSHIM_PROFILE_CONTROL_FD);
  if (!Number.isInteger(fd) || fd <= 2) return;
  // A stop that lands while the process already exits (after SIGINT's own exit, say) must not
  // call process.exit() again: that would end it before the profile is written.
  let exiting = false;
  process.prependListener('exit', () => {
    exiting = true;
  });
  globalThis[Symbol.for('perfshim.profile.stop')] = () => {
    if (exiting) return;
    process.once('exit', () => {
      try {
        closeSync(2);
        openSync('/dev/null', 'w'); // the lowest free fd: 2
      } catch {
        /* no /dev/null: fd 2 stays closed */
      }
    });
    stop();
  };
  const worker = new Worker(
    `const { Session } = require('node:inspector');
const { Socket } = require('node:net');
const control = new Socket({ fd: ${fd}, readable: true, writable: false });
control.on('error', () => {});
control.setEncoding('utf8').on('data', (text) => {
  if (!text.includes('stop')) return;
  const session = new Session();
  session.connectToMainThread();
  session.post('Runtime.evaluate', { expression: 'globalThis[Symbol.for("perfshim.profile.stop")]()' },
    () => session.disconnect());
});`,
    { eval: true, execArgv: [] },
  );
  worker.on('error', () => {}); // no inspector in this Node: the signal alone stops the script
  worker.unref();
}

/**
 * The main thread's sample count while it runs. V8 hands a profile's samples over only when the
 * profile stops, and stopping ours would restart V8's profiler (see profiler-node.js). But V8
 * adds every tick of a session's sampler to each profile running on that session's CpuProfiler,
 * and console.profile()/profileEnd() start and stop a nested profile on the CpuProfiler of every
 * session with the Profiler domain enabled, ours included: each short window's samples are our
 * profile's samples of that window. Windows overlap (the next starts before the previous ends);
 * a window's samples count up to the next window's start, so the count lags by one window.
 * `chunk()` gives the sampler's running chunk ({session}: its inspector session). Returns
 * { tick(): the count so far (undefined until known), close() }.
 */
function liveSampleCount(chunk) {
  const profile = console.profile;
  const profileEnd = console.profileEnd;
  if (typeof profile !== 'function' || typeof profileEnd !== 'function') return null;
  let counted = 0;
  let known = false;
  let window = 0; // the open window's number
  let previous = null; // the last finished window: [startTime, sample timestamps] (V8 µs)
  let listening = null;
  const title = (n) => `perfshim-live-${process.pid}-${n}`;
  const onFinished = ({ params }) => {
    const p = params.profile;
    if (!params.title || !params.title.startsWith(`perfshim-live-${process.pid}-`)) return;
    const times = [];
    let t = p.startTime;
    for (const d of p.timeDeltas || []) times.push((t += d));
    if (previous) counted += previous[1].filter((x) => x < p.startTime).length;
    previous = [p.startTime, times];
    known = true;
  };
  const listen = () => {
    const c = chunk();
    const s = c && c.session;
    if (s === listening) return !!s;
    if (listening) listening.off('Profiler.consoleProfileFinished', onFinished);
    listening = s || null;
    // A new chunk (a hand-over) is a new CpuProfiler: the old windows are gone with it.
    previous = null;
    if (s) s.on('Profiler.consoleProfileFinished', onFinished);
    return !!s;
  };
  if (!listen()) return null;
  profile.call(console, title(window));
  return {
    tick() {
      if (listen()) {
        profile.call(console, title(window + 1)); // before the previous one ends: no gap
        profileEnd.call(console, title(window));
        window++;
      }
      return known ? counted : undefined;
    },
    close() {
      profileEnd.call(console, title(window));
    },
  };
}
