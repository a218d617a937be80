// `perfshim profile [options] -- script.js [args...]`: run a Node script with a perfshim Profiler
// on its main thread and on every worker thread (the preload, preload.mjs), perfshim installed so
// its marks and measures are captured; then write the chosen formats and print the top functions.
//
// The script runs in a child `node` with the script's own stdio; our messages go to stderr.
// Its exit code is ours (128 + n when a signal ended it). Ctrl-C reaches the child from the
// terminal (forwarded when we are not on one); --duration sends it SIGINT after S seconds; either
// way we also ask the preload on a control pipe, which stops a script that never yields (see
// preload.mjs); the preload writes the profile on exit, and we write the files. Progress (elapsed time,
// the main thread's samples so far, counted by the preload in short nested V8 profiles, and
// buffered marks and measures): one rewritten line on a terminal, a plain line every 5 s
// otherwise.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir, constants as osConstants } from 'node:os';
import { join, resolve, relative } from 'node:path';
import { toTraceEvents, toCpuProfile, toSpeedscope, toFirefoxProfile } from '../index.js';
import { toPprof } from '../export/pprof.js';

export const FORMATS = ['trace', 'cpuprofile', 'speedscope', 'firefox', 'pprof'];
const DEFAULT_FORMATS = ['trace', 'cpuprofile'];

export const USAGE = `Usage: perfshim profile [options] [--] script.js [args...]

Runs a Node script with a perfshim Profiler on its main thread and its worker threads, with
perfshim installed (its marks and measures are captured), then writes the profiles and prints
the functions that took the most time.

Options:
  --interval MS        sampling interval in milliseconds (default 1; at least 0.1)
  --out DIR            where to write the files (default ./perfshim-profile-<date>-<time>)
  --format LIST        comma-separated: ${FORMATS.join(', ')}
                       (default ${DEFAULT_FORMATS.join(',')})
  --duration S         stop the script (as Ctrl-C does) after S seconds
  --max-samples N      sample buffer per thread (default 1000000)
  --top N              rows in the top-functions table (default 15; 0 for none)
  --import MODULE      preload MODULE in the script's process (node --import), repeatable
  --require MODULE, -r MODULE
                       preload MODULE (node --require), repeatable
  -h, --help           this help

The exit code is the script's. Ctrl-C stops the script and still writes the files.
Worker threads started from a file and forked Node processes are profiled; eval workers and
workers given their own
execArgv are not (Node does not apply --import to them).`;

/** A usage error: message and exit code 2. */
class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
  }
}

const usage = (message) => {
  throw new UsageError(message);
};

function number(flag, v, { min, integer = false }) {
  if (v === undefined || v === '') usage(`${flag} needs a value`);
  const n = Number(v);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min)
    usage(`${flag} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got '${v}'`);
  return n;
}

/** --format's list: known formats, each once. */
function formatList(v) {
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!list.length) usage('--format needs at least one format');
  for (const f of list)
    if (!FORMATS.includes(f)) usage(`unknown format '${f}' (known: ${FORMATS.join(', ')})`);
  return [...new Set(list)];
}

/** The options that take a value: flag -> set(options, value, flag). */
const WITH_VALUE = {
  '--interval': (o, v, f) => (o.interval = number(f, v, { min: 0.1 })),
  '--out': (o, v) => (o.out = v || usage('--out needs a directory')),
  '--duration': (o, v, f) => (o.duration = number(f, v, { min: 0 })),
  '--max-samples': (o, v, f) => (o.maxSamples = number(f, v, { min: 1, integer: true })),
  '--top': (o, v, f) => (o.top = number(f, v, { min: 0, integer: true })),
  '--format': (o, v) => (o.formats = formatList(v)),
  '--import': (o, v) => o.preloads.push('--import', v),
  '--require': (o, v) => o.preloads.push('--require', v),
  '-r': (o, v) => o.preloads.push('--require', v),
};

/** argv (after `profile`) -> options; throws UsageError. */
export function parseArgs(argv) {
  const o = {
    interval: 1,
    out: null,
    formats: DEFAULT_FORMATS,
    duration: null,
    maxSamples: 1_000_000,
    top: 15,
    preloads: [],
    help: false,
    script: null,
    args: [],
  };
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break; // the script
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    if (flag === '-h' || flag === '--help') o.help = true;
    else if (!Object.hasOwn(WITH_VALUE, flag)) usage(`unknown option '${a}'`);
    else if (eq > 0) WITH_VALUE[flag](o, a.slice(eq + 1), flag);
    else if (i + 1 < argv.length) WITH_VALUE[flag](o, argv[++i], flag);
    else usage(`${flag} needs a value`);
  }
  if (o.help) return o;
  if (i >= argv.length) usage('no script given: perfshim profile [options] -- script.js [args...]');
  o.script = argv[i];
  o.args = argv.slice(i + 1);
  return o;
}

const stamp = (d) =>
  `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, '0')}${String(d.getDate()).padStart(2, '0')}-${String(d.getHours()).padStart(2, '0')}${String(d.getMinutes()).padStart(2, '0')}${String(d.getSeconds()).padStart(2, '0')}`;

/** Top functions over all threads: self time (leaf) and total time (anywhere on the stack, once
 *  per sample); each sample weighs the time to the next one (the last: the interval). */
export function topFunctions(threads) {
  const rows = new Map();
  let all = 0;
  let w, seen; // the sample's weight, the rows it has counted
  const visit = (key, name, where) => {
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { name, where, self: 0, total: 0 }));
    if (!seen.size) r.self += w; // the leaf
    if (!seen.has(key)) {
      r.total += w;
      seen.add(key);
    }
  };
  for (const { trace, interval } of threads) {
    if (!trace) continue;
    const { samples, stacks, frames, resources } = trace;
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i];
      w = i + 1 < samples.length ? samples[i + 1].timestamp - s.timestamp : interval;
      all += w;
      seen = new Set();
      if (s.stackId === undefined) {
        const name = s.marker === 'gc' ? '(garbage collector)' : '(program)';
        visit(name, name, '');
      }
      for (let id = s.stackId; id !== undefined; id = stacks[id].parentId) {
        const f = frames[stacks[id].frameId];
        const url = f.resourceId === undefined ? '' : resources[f.resourceId];
        const where = url ? `${url.replace(/^file:\/\//, '')}${f.line ? `:${f.line}` : ''}` : '';
        visit(`${f.name}\u0000${where}`, f.name || '(anonymous)', where);
      }
    }
  }
  return {
    total: all,
    rows: [...rows.values()].sort((a, b) => b.self - a.self || b.total - a.total),
  };
}

export function formatTable({ total, rows }, n) {
  const pct = (v) => (total > 0 ? `${((100 * v) / total).toFixed(1)}%` : '-');
  const ms = (v) => v.toFixed(1);
  const lines = [['self ms', 'self', 'total ms', 'total', 'function']];
  for (const r of rows.slice(0, n))
    lines.push([
      ms(r.self),
      pct(r.self),
      ms(r.total),
      pct(r.total),
      r.where ? `${r.name}  ${r.where}` : r.name,
    ]);
  // Four right-aligned number columns, then the function.
  const widths = [0, 1, 2, 3].map((c) => Math.max(...lines.map((l) => l[c].length)));
  const pad = (l) => l.slice(0, 4).map((c, k) => c.padStart(widths[k]));
  return lines.map((l) => [...pad(l), l[4]].join('  ')).join('\n');
}

/** Shift a thread's trace and entries onto the main thread's time origin (for one trace file). */
function rebase(thread, origin) {
  const d = thread.timeOrigin - origin;
  if (!d) return thread;
  const trace = {
    ...thread.trace,
    samples: thread.trace.samples.map((s) => ({ ...s, timestamp: s.timestamp + d })),
  };
  return {
    ...thread,
    trace,
    entries: thread.entries.map((e) => ({ ...e, startTime: e.startTime + d })),
  };
}

/** Thread k's part of the one trace-event document of every thread, on the first thread's clock
 *  (`origin`): pid = the process id, tid = threadId + 1, event ids made unique per thread, the
 *  document-level events once (from k = 0). */
function threadEvents(t, k, origin) {
  const r = rebase(t, origin);
  const doc = toTraceEvents(r.trace, { entries: r.entries, pid: t.pid, tid: t.threadId + 1 });
  const events = [];
  for (const e of doc.traceEvents) {
    if (k > 0 && e.name === 'TracingStartedInBrowser') continue;
    if (!t.isMainThread && e.name === 'process_name') continue;
    if (e.name === 'process_name' && !t.isRoot) e.args = { name: `perfshim ${t.name}` };
    if (!t.isMainThread && e.name === 'thread_name')
      e.args = { name: `DedicatedWorker thread ${t.threadId}` };
    if (typeof e.id === 'string' && k > 0)
      e.id = `0x${k.toString(16)}${e.id.slice(2).padStart(6, '0')}`;
    events.push(e);
  }
  return events;
}

/** A thread file's name part, as the preload makes it: main, worker-<id>, and for a forked
 *  process process-<pid>-main / process-<pid>-worker-<id>. Nothing else is written under --out. */
const THREAD_NAME = /^(process-\d+-)?(main|worker-\d+)$/;

/** Why a thread file's contents cannot be used, or null. */
function badThread(t) {
  if (t === null || typeof t !== 'object') return 'not an object';
  if (typeof t.name !== 'string' || !THREAD_NAME.test(t.name))
    return `a thread name that is not main, worker-N or process-N-...: ${JSON.stringify(t.name)}`;
  if (!Number.isInteger(t.pid) || !Number.isInteger(t.threadId)) return 'no pid or threadId';
  if (!Array.isArray(t.entries)) return 'no entries';
  if (t.trace === null || t.trace === undefined) return null;
  if (typeof t.trace !== 'object' || !Array.isArray(t.trace.samples))
    return 'a trace without samples';
  if (!Number.isFinite(t.timeOrigin) || !(t.interval > 0)) return 'no timeOrigin or interval';
  return null;
}

/** Write the chosen formats for `threads` into `out`; returns { paths, failed }: a thread whose
 *  profile cannot be converted is left out of every file ([name, message] in failed), the
 *  others are written. */
export function writeProfiles(threads, out, formats) {
  mkdirSync(out, { recursive: true });
  const paths = [];
  const failed = [];
  const write = (name, data) => {
    const p = join(out, name);
    writeFileSync(p, data instanceof Uint8Array ? data : JSON.stringify(data)); // pprof's bytes
    paths.push(p);
  };
  // A thread's files are all made before any is written: a bad one leaves nothing half-done.
  const files = [];
  const events = [];
  const profiled = threads.filter((t) => t.trace);
  const origin = profiled.length ? profiled[0].timeOrigin : 0;
  let converted = 0;
  for (const t of profiled) {
    try {
      if (!THREAD_NAME.test(t.name)) throw new TypeError('not a thread name');
      const mine = [];
      const add = (format, name, make) => formats.includes(format) && mine.push([name, make()]);
      add('cpuprofile', `${t.name}.cpuprofile`, () => toCpuProfile(t.trace));
      add('speedscope', `${t.name}.speedscope.json`, () =>
        toSpeedscope(t.trace, { name: `${t.name} ${t.url}`.trim() }),
      );
      add('firefox', `${t.name}.firefox.json`, () =>
        toFirefoxProfile(t.trace, { name: t.name, timeOrigin: t.timeOrigin, interval: t.interval }),
      );
      add('pprof', `${t.name}.pb.gz`, () =>
        toPprof(t.trace, { entries: t.entries, timeOrigin: t.timeOrigin, interval: t.interval }),
      );
      const part = formats.includes('trace') ? threadEvents(t, converted, origin) : [];
      converted++;
      files.push(...mine);
      for (const e of part) events.push(e);
    } catch (e) {
      failed.push([String(t.name), e && e.message ? e.message : String(e)]);
    }
  }
  if (formats.includes('trace') && converted) write('trace.json', { traceEvents: events });
  for (const [name, data] of files) write(name, data);
  return { paths, failed };
}

function signalCode(signal) {
  const n = osConstants.signals[signal];
  return n ? 128 + n : 1;
}

/** V8 flags the profiled process needs on this Node. V8 10.2 (Node 18) can deadlock at exit
 *  while the CPU profiler has had code logging on: a background WebAssembly tier-up that
 *  finishes as the isolate is torn down posts a code-logging task, which is rejected and whose
 *  destructor takes the wasm engine's mutex that the posting thread already holds (seen in gdb:
 *  LogCodesTask::~LogCodesTask under WasmEngine::LogCode; the main thread waits in
 *  WasmEngine::RemoveIsolate). 3 to 5 runs in 30 hung here. Without tier-up no background
 *  compilation outlives instantiation (0 in 30); perfshim's core then runs as Liftoff code. */
function v8Workarounds() {
  const major = Number(process.versions.v8.split('.')[0]);
  return major < 11 ? ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up'] : [];
}

/** Why this command cannot run in this runtime, or null (Node). Bun and Deno report a Node
 *  version and run this file, but the profiled process is this runtime too (process.execPath),
 *  and the preload needs what only Node gives it: --import applied to every worker thread, a
 *  Profiler whose trace can be read synchronously in 'exit' (Bun's and Deno's inspector sources
 *  answer asynchronously) and an inspector session to stop a script that never yields. */
export function runtimeShortfall(versions = process.versions) {
  const name = versions.bun ? `Bun ${versions.bun}` : versions.deno ? `Deno ${versions.deno}` : '';
  if (!name) return null;
  return `perfshim profile: runs scripts under Node, and this is ${name}: its preload needs Node's --import in every worker thread, a profile it can read synchronously at exit and Node's inspector to stop a busy script.
  Run the command with Node (the script then runs in Node):
    node ./node_modules/perfshim/glue/cli/perfshim.js profile -- script.js
  or profile in ${name.split(' ')[0]} from the script itself, with the Profiler and an exporter:
    import { Profiler, toCpuProfile } from 'perfshim';
    const profiler = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
    // ... the work ...
    const trace = await profiler.stop(); // then toCpuProfile(trace), toPprof (perfshim/pprof), ...`;
}

/** Run the command; resolves with the exit code. `io` (tests): { stderr, env, isTTY }. */
export async function run(argv, io = {}) {
  const stderr = io.stderr || process.stderr;
  const say = (s) => stderr.write(`${s}\n`);
  let o;
  try {
    o = parseArgs(argv);
  } catch (e) {
    if (e.name !== 'UsageError') throw e;
    say(`perfshim profile: ${e.message}\nRun 'perfshim profile --help' for the options.`);
    return 2;
  }
  if (o.help) {
    say(USAGE);
    return 0;
  }
  const why = runtimeShortfall();
  if (why) {
    say(why);
    return 2;
  }
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 18 || (major === 18 && minor < 19) || (major === 20 && minor < 6)) {
    say(
      `perfshim profile: needs Node >= 18.19 or >= 20.6 (node --import); this is ${process.version}`,
    );
    return 2;
  }
  const script = resolve(o.script);
  if (!existsSync(script)) {
    say(`perfshim profile: no such script: ${o.script}`);
    return 2;
  }
  const out = resolve(o.out || `perfshim-profile-${stamp(new Date())}`);
  const tmp = mkdtempSync(join(tmpdir(), 'perfshim-profile-'));
  const isTTY = io.isTTY !== undefined ? io.isTTY : !!stderr.isTTY;
  const preload = new URL('./preload.mjs', import.meta.url).href;
  const env = {
    ...(io.env || process.env),
    PERFSHIM_PROFILE_DIR: tmp,
    PERFSHIM_PROFILE_INTERVAL: String(o.interval),
    PERFSHIM_PROFILE_MAX_SAMPLES: String(o.maxSamples),
    PERFSHIM_PROFILE_PROGRESS_FD: '3',
    PERFSHIM_PROFILE_CONTROL_FD: '4',
  };
  say(`perfshim: profiling ${relative(process.cwd(), script) || script} every ${o.interval} ms`);
  const child = spawn(
    process.execPath,
    [...v8Workarounds(), '--import', preload, ...o.preloads, script, ...o.args],
    {
      stdio: ['inherit', 'inherit', 'inherit', 'pipe', 'pipe'],
      env,
    },
  );
  const t0 = Date.now();
  let lastPlain = 0;
  let progressShown = false;
  // The preload's lines: {ready} once, then the progress every 250 ms.
  createInterface({ input: child.stdio[3] }).on('line', (text) => {
    let last;
    try {
      last = JSON.parse(text);
    } catch {
      return; // not ours
    }
    if (!last || typeof last !== 'object') return;
    if (last.ready) return onReady();
    // The main thread's samples so far (counted in windows by the preload: it lags ~0.25 s);
    // none before the first window is counted or when the count is unavailable.
    const samples =
      typeof last.samples === 'number' ? `${last.samples} samples on the main thread, ` : '';
    const line = `perfshim: ${(last.elapsed / 1000).toFixed(1)} s, sampling every ${o.interval} ms, ${samples}${last.entries} marks/measures buffered`;
    if (isTTY) {
      stderr.write(`\r\x1b[K${line}`);
      progressShown = true;
    } else if (Date.now() - lastPlain >= 5000) {
      lastPlain = Date.now();
      say(line);
    }
  });
  child.stdio[3].on('error', () => {});
  child.stdio[4].on('error', () => {});

  // A stop is SIGINT (unless Ctrl-C on a terminal already sent it) and a line on the control
  // pipe, which stops a script that never yields to its event loop (preload.mjs,
  // stopFromOutside); both once the preload has set its handler (it says "ready"): before that,
  // Node's default would end the child without a profile.
  let stopping = false,
    ready = false,
    pendingStop = null,
    timer = null;
  const stop = (signal = true) => {
    stopping = true;
    if (!ready) {
      pendingStop = pendingStop || signal;
      return;
    }
    if (signal) child.kill('SIGINT');
    child.stdio[4].write('stop\n');
  };
  function onReady() {
    if (ready) return;
    ready = true;
    if (pendingStop !== null) stop(pendingStop);
    if (o.duration !== null) timer = setTimeout(stop, o.duration * 1000);
  }
  // On a terminal Ctrl-C already reached the child (same process group): no second signal.
  const onSigint = () => stop(!(isTTY && process.stdin.isTTY));
  process.on('SIGINT', onSigint);
  const { code, signal } = await new Promise((res, rej) => {
    child.on('error', rej);
    child.on('exit', (c, s) => res({ code: c, signal: s }));
  }).finally(() => {
    process.off('SIGINT', onSigint);
    if (timer) clearTimeout(timer);
  });
  if (progressShown) stderr.write('\r\x1b[K'); // the progress line
  const exitCode = code !== null ? code : signalCode(signal);

  const threads = [];
  let files = null;
  try {
    files = readdirSync(tmp);
  } catch (e) {
    say(
      `perfshim: the profile directory ${tmp} is gone (${e.code || e.message}; removed by the script?): no profile was kept`,
    );
  }
  try {
    // The root process's main thread first, then its workers, then forked processes' threads.
    for (const f of files || []) {
      if (!/^thread-\d+-\d+\.json$/.test(f)) continue;
      let t;
      try {
        t = JSON.parse(readFileSync(join(tmp, f), 'utf8'));
      } catch {
        say(
          `perfshim: ${f}: an incomplete profile (its process was killed while writing it), skipped`,
        );
        continue;
      }
      const why = badThread(t);
      if (why) say(`perfshim: ${f}: not a profile this command wrote (${why}), skipped`);
      else threads.push(t);
    }
    threads.sort((a, b) => b.isRoot - a.isRoot || a.pid - b.pid || a.threadId - b.threadId);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  if (!threads.length) {
    say(
      `perfshim: the script ended (${signal || `exit code ${code}`}) after ${seconds} s without a profile (killed before it could write one?)`,
    );
    return exitCode;
  }
  for (const t of threads) {
    if (t.error) say(`perfshim: ${t.name}: not profiled: ${t.error}`);
    if (t.bufferFull)
      say(
        `perfshim: ${t.name}: the sample buffer filled up (${t.maxSamples} samples): later samples are missing; raise --max-samples`,
      );
  }
  let paths, failed;
  try {
    ({ paths, failed } = writeProfiles(threads, out, o.formats));
  } catch (e) {
    say(`perfshim profile: could not write the profiles to ${out}: ${e.message}`);
    return exitCode || 1;
  }
  for (const [name, message] of failed)
    say(`perfshim: ${name}: its profile could not be converted (${message}), left out`);
  const written = threads.filter((t) => !failed.some(([name]) => name === t.name));
  const samples = written.reduce((a, t) => a + (t.trace ? t.trace.samples.length : 0), 0);
  const entries = written.reduce((a, t) => a + t.entries.length, 0);
  say(
    `perfshim: ${stopping ? 'stopped' : 'done'} after ${seconds} s, exit code ${exitCode}; ${threads.length} thread${threads.length > 1 ? 's' : ''}, ${samples} samples, ${entries} marks/measures`,
  );
  if (o.top > 0) say(formatTable(topFunctions(written), o.top));
  say('perfshim: wrote');
  for (const p of paths) say(`  ${relative(process.cwd(), p) || p}`);
  return exitCode;
}
