// The instrumentation sample source: samples of code instrumented by glue/instrument/transform.js,
// for hosts whose engine gives us no sampler (Firefox, WebKit, Chromium without the js-profiling
// policy, their workers). This module is the only one that calls the core's ps_instrument_*
// exports (src/instrument.h). Two samplers, chosen when a profiler starts:
//   - shared: where SharedArrayBuffer and workers exist (cross-origin isolated pages), the
//     probes' shadow stack moves into shared memory and a sampler worker snapshots it every
//     interval (Atomics.wait keeps the pace even while the page runs a long task); snapshots
//     come back in batches and go into the trace through ps_instrument_sample.
//   - log: elsewhere, the probes write every enter (its frame id and depth) as one i32 straight
//     into the logger's plain Int32Array (a window of it at a time); exits write nothing (the
//     next enter's depth says how far the stack fell; the logger places the fall in the gap
//     before it, `fell`, and writes the exit to depth 0 when the probes' microtask reset runs),
//     with the time on a few records only (a clock read costs more than the rest of a probe),
//     kept apart with their record index; the log is copied into the core's (src/instrument.h)
//     and handed over when it is full, every PUMP_MS, and at stop(); the core turns it into the
//     stack active at each tick (ps_instrument_consume / _advance).
// Both register the probes' frame table in the core once per frame and give the same trace.
import { isWindow, isWorker, nativeNow, timeOrigin } from '../host/host.js';
import { domException } from '../host/errors.js';
import { getProbes, PROBES_KEY, readFrameTable, STACK_BASE as B } from './probes.js';
import {
  PS_E_NOMEM,
  PS_INSTRUMENT_AT_DEPTH as AT_DEPTH,
  PS_INSTRUMENT_HERE_END as HERE_END,
  PS_INSTRUMENT_ID_BITS as ID_BITS,
} from '../host/abi.js';

const CONTEXT = 'perfshim profiler (instrumentation)';
const LOG_RECORDS = 1 << 15; // records (128 KB) handed over when full...
const LOG_STAMPS = 1 << 12; // ...or when this many stamps (64 KB) are
const PUMP_MS = 100; // log hand-over and idle ticks while nothing else triggers them
const POST_MS = 50; // the sampler worker's batch period
const STAMP_EVERY = 64; // the log sampler stamps at least every 64th record (see stateOf)...
const STAMP_MAX = 255; // ...or, while the clock reads the same at each stamp, up to every 255th
// (the probes' log window: a window is as long as the countdown to the next stamp)
const LONG_MIN_MS = 0.05; // a stretch this long (or twice the clock's granularity) is long
const STAMP_GAP_MS = 0.025; // records further apart than this on average are all stamped...
const RATE_MS = 1; // ...the average measured over stretches of frames this long (or 4 ticks)
// Records (probes.js, src/instrument.h): an enter is `depth << 21 | id`, depth < AT_DEPTH and
// id < ID_BIG; `HERE | id` (written by the logger only, after an exit record) pushes frame id at
// the depth the exit left.
const ID_BIG = (1 << ID_BITS) - 1;
const HERE = 1 << 31; // (below HERE_END)
const EVERY_CHANGE = 1e9; // a depth limit past any depth: the logger sees every change
const DEEP = AT_DEPTH - STAMP_MAX - 1; // past it, a window's pushes could reach AT_DEPTH
const CREDIT = 8; // short gaps a long one keeps its frame slow for...
const CREDIT_MAX = 32; // ...up to this many
const SUSPECT = 2; // short gaps a long window keeps each of its frames slow for

/** The host clock's granularity in ms (browsers coarsen performance.now() to 0.1–1 ms without
 *  cross-origin isolation): the smallest step seen over a few ticks, once per realm. */
function clockGranularity() {
  let a = nativeNow(),
    best = Infinity,
    steps = 0;
  for (let i = 0; i < 1e5 && steps < 3; i++) {
    const b = nativeNow();
    if (b !== a) {
      if (b > a) best = Math.min(best, b - a);
      a = b;
      steps++;
    }
  }
  return best < Infinity ? best : 1;
}

/** The interval both samplers use for a requested one (ms): the next whole millisecond, at
 *  least 1 ms (timers and the clocks of browsers without isolation are no finer). */
export function supportedIntervalMs(ms) {
  return Math.min(0x7fffffff, Math.max(1, Math.ceil(ms - 1e-9)));
}

const states = new WeakMap(); // core -> its adapter state

// The probes' logger call sites (probes.js: the push's, writing its record inline, and the
// pop's) see two functions before any logger of ours, so V8 never inlines a logger into the
// probes (and with them into instrumented functions optimized while a profiler logs, where an
// inlined logger made calls ~1.5 ns slower): a plain call behind the cursor. A push with the
// switch on (`e`, its record at a window's last slot: `w(W, 1, 2, -1)`) and a pop under a depth
// limit past it reach them; before the first logger of this module, once per probe object. (In
// the probes' runtime until probes.10: its bytes were in every instrumented bundle, and it
// warmed `r`'s pop too, which every return calls while no profiler runs.)
const warmed = new WeakSet();
function warmLogger(P) {
  if (warmed.has(P)) return;
  warmed.add(P);
  const W = new Int32Array(2); // (a plain Int32Array, as the logger's)
  P.use(1);
  try {
    for (const f of [() => {}, () => {}]) {
      P.log(f);
      for (let i = 0; i < 32; i++) {
        P.w(W, 1, 2, -1);
        P.x(P.e(0));
      }
    }
  } finally {
    P.w(W, 0, 0, 0);
    P.use(-1);
  }
}

/** The adapter for one core (its io layer, glue/host/io.js): frame registration, the log and the
 *  sessions. */
function stateOf(core) {
  let st = states.get(core);
  if (st) return st;
  const x = core.x;
  function check(r) {
    return core.check(r, CONTEXT);
  }
  const P = getProbes();
  const S = P.S; // the probes' stack, the same array for their whole life
  let tables = 0, // the probes' frame tables registered in the core...
    base = 0; // ...and their frames
  // The log: `n` records in R (`depth << 21 | id` for an enter, ~depth for an exit the logger
  // writes) and `m / 2` stamps in T (record index, time), copied into the core's log (`at`: its
  // byte address) at each hand-over. A plain array, not a view of the core's memory: cheaper to
  // write in every engine (and a view dies when the memory grows).
  // The probes write the records straight into R (R[1 + j]: record j; the cursor is 1 + n); a
  // window leaves a slot free for the record the logger may add (`writer`).
  const R = new Int32Array(LOG_RECORDS + 1),
    T = new Float64Array(2 * LOG_STAMPS);
  let n = 0,
    m = 0,
    at = 0;
  // Stamps (src/instrument.c, "Stamps"). Between two records the stack is constant: that gap
  // belongs to the frame then on top (its owner, -1 for none). The logger stamps a record when
  // the gap it ends or starts is a slow frame's or no frame's (idle time: an enter at depth 0 or
  // an exit to it), and every STAMP_EVERY-th record otherwise. A stamp ending an unstamped
  // window at least `longMs` long marks the window's frames slow, so from then on their gaps are
  // measured exactly; a long exact gap keeps its frame slow for CREDIT more gaps, so a frame
  // stays slow only while about one of its gaps in CREDIT is long (a GC pause or a frame with
  // many short gaps and a rare long one does not keep most records stamped). The slow table is
  // the probes' `F` (1 for a slow frame, by frame id): the probes call the logger at a push of a
  // slow frame and at every push at depth <= their limit, which the logger keeps one past the
  // deepest slow frame on the stack (`limit`), 0 with none (probes.js); no frame (idle time) is
  // exact through the depth-0 records (a push there, and the probes' reset at a task's end).
  // Pops write no record and make no call: where the stack fell in the gap before a push is
  // the logger's guess (`fell`), from what it learned of the fallen frames' gaps.
  // The common record pays for no owner and no table: while no frame is slow (most of the time)
  // only the window and the depth decide; owners are read back from the records when needed.
  // Measured in Firefox / Chromium (ns per instrumented call, in-page, with a logger call every
  // record): tracking the owner on every record cost 9 / 3, testing the table 11 / 2, keeping
  // the window's owners 7 / 3.
  let credit = new Int32Array(0),
    // (by frame id: in how many more long gaps a frame seen to run short falls first: fell)
    short = new Uint8Array(0),
    countdown = 1,
    stride = STAMP_EVERY,
    lastK = -1, // the record last stamped (negative: in an earlier hand-over)
    firstOwner = -1, // the owner of the gap after it
    lastStamp = 0,
    longMs = 0,
    rateMs = RATE_MS,
    firstRateMs = RATE_MS,
    measured = false, // whether the session's first rate is measured (see open)
    ticked = false, // whether the clock moved since the session opened
    spanMs = 0, // frames' time and records since the average was last measured
    spanRecords = 0,
    sparse = 1; // the stride that keeps stamps STAMP_GAP_MS apart on average (see open)
  const logSessions = new Set();
  let pump = null;

  // The owner of the gap after record j of this hand-over (-1 before it). Exact for the records
  // just written; for older ones of a window the stack may have changed since (a frame pushed
  // where the one restored to sat), which only affects what is learned.
  function ownerAfter(j) {
    if (j < 0) return -1;
    const v = R[j + 1];
    return v >= 0 ? v & ID_BIG : v < HERE_END ? v ^ HERE : topAt(~v);
  }
  // The frame at the top of a stack d deep (S as it is now, -1 for none).
  function topAt(d) {
    return d > 0 && d + B - 1 < S.length ? S[d + B - 1] : -1;
  }
  // The owner of the gap before record j, when the stack fell before it: the caller of an enter
  // (the pops before it are no records), -1 for an exit or no caller.
  function callerAt(j) {
    const v = R[j + 1];
    return v >= 0 ? topAt(v >>> ID_BITS) : -1;
  }

  // A short exact gap of frame f: one less for it to stay slow.
  function cool(f) {
    if (P.F[f] === 1 && --credit[f] <= 0) P.F[f] = 0;
  }
  // (no frame, f = -1, and an id past the table: typed arrays ignore them)
  function markSlow(f, c) {
    P.F[f] = 1;
    credit[f] = Math.min(credit[f] + c, CREDIT_MAX);
  }

  // Whether neither gap around a record at depth b is a slow frame's: for an enter (pushed at
  // depth b) they are the caller's, S[B + b - 1], and its own, S[B + b]; for an exit (to depth
  // b) the returning frame's, still in S[B + b], and its caller's, S[B + b - 1].
  function neitherSlow(b) {
    return (P.F[S[B + b - 1]] | P.F[S[B + b]]) === 0;
  }

  // The stamp of record k, and what it teaches.
  function stamp(k, now = nativeNow()) {
    T[m] = k;
    T[m + 1] = now;
    m += 2;
    const ms = now - lastStamp;
    if (k === lastK + 1) {
      // an exact gap of the owner after the last stamp
      const f = firstOwner;
      if (ms >= longMs) {
        markSlow(f, CREDIT);
        if (f >= 0) short[f] = 0;
      } else {
        // (and, when the stack fell before record k, of the frame it fell back to: pops make
        // no record, so that frame's own gaps are seen only this way)
        const y = callerAt(k);
        cool(f);
        if (y !== f) cool(y);
        if (f >= 0) short[f] = CREDIT;
      }
    } else if (ms >= longMs) {
      markSlow(firstOwner, SUSPECT);
      for (let j = Math.max(lastK + 1, 0); j < k; j++) markSlow(ownerAfter(j), SUSPECT);
    }
    // (and the frames the stack fell back to before a push in it: pops write no record)
    if (ms >= longMs)
      for (let j = Math.max(lastK + 1, 0); j <= k; j++) markSlow(callerAt(j), SUSPECT);
    // The records' rate in frames' time (idle gaps are exact windows of their own: left out),
    // counted from the first gap the clock moved in (see open).
    if (firstOwner >= 0 && ticked) {
      spanMs += ms;
      spanRecords += k - lastK;
      if (spanMs >= (measured ? rateMs : firstRateMs)) {
        sparse = Math.min(STAMP_MAX, Math.ceil((STAMP_GAP_MS * spanRecords) / spanMs));
        measured = true;
        spanMs = 0;
        spanRecords = 0;
      }
    } else if (ms > 0) ticked = true;
    lastStamp = now;
    lastK = k;
    firstOwner = ownerAfter(k);
    // A coarse clock (0.1-1 ms without isolation) mostly reads the same at stamps 64 records
    // apart: the stride doubles while it does, and is back at STAMP_EVERY once it moves. Records
    // sparser than a clock read's cost matters (STAMP_GAP_MS apart: <= ~1 %) are all stamped: a
    // clock tick then lands in the one gap where the clock was seen to move, and that gap's
    // frame gets the tick (sampling at the clock's own ticks, unbiased), where the even spread of
    // a window's times over its records would give a short call's gap as much time as a long
    // one's (1 ms clock, 1x and 2x work in ~0.5 ms calls: 1.23-1.48 instead of 2).
    stride = Math.min(sparse, ms === 0 ? Math.min(2 * stride, STAMP_MAX) : STAMP_EVERY);
    countdown = stride;
    if (m === T.length) handOver();
  }

  // R and T to the core.
  function handOver() {
    st.frames();
    const count = n,
      stamps = m >> 1;
    n = 0;
    m = 0;
    lastK -= count; // the records of this block are gone from R
    if (!count) return;
    core.f64().set(T.subarray(0, 2 * stamps), at >>> 3);
    core.i32().set(R.subarray(1, count + 1), (at >>> 2) + 4 * LOG_STAMPS);
    check(x.ps_instrument_consume(count, stamps));
  }

  // The probes write the records into R themselves (probes.js: `w` sets the array, the cursor,
  // where the window ends and the depth limit) and call the logger with the cursor when it
  // reaches the window's end or a push is at a depth up to the limit. The window is as long as
  // the countdown to the next stamp, so most records cost the probes one store and no call; the
  // probes also call it at a push next to a slow frame's gap (see `rearm`), so that record is
  // stamped.
  // The records up to cursor c are the log's (nothing to copy); returns how many are new.
  function take(c) {
    const k = c - 1 - n;
    if (k <= 0) return 0;
    n = c - 1;
    countdown -= k;
    return k;
  }
  // The next window: as long as the countdown (and R's room: a full R is handed over first);
  // and the probes' depth limit, one past the deepest slow frame on the stack (0 with none): the
  // probes call the logger at every push at a depth up to it, so it sees every push there (a
  // slow frame deeper than it calls when it is pushed) and stamps it.
  // Past DEEP, or with frame ids past what a record holds, the probes call at every push and
  // the logger writes the pushes a record cannot hold (`writer`).
  function rearm() {
    if (n >= LOG_RECORDS - 1) handOver();
    const F = P.F;
    let i = Math.min(S[0], S.length - B) - 1;
    while (i >= 0 && F[S[B + i]] !== 1) i--;
    const limit = S[0] > DEEP || P.n >= ID_BIG ? EVERY_CHANGE : i + 1;
    P.w(R, n + 1, n + 1 + Math.min(Math.max(1, countdown), LOG_RECORDS - 1 - n), limit);
  }
  // The depth of the stack after record j of this hand-over (-1 before it).
  // (`HERE | id` follows the exit record the logger wrote with it)
  function depthAfter(j) {
    const v = R[j + 1];
    return j < 0 ? -1 : v >= 0 ? (v >>> ID_BITS) + 1 : v >= HERE_END ? ~v : ~R[j] + 1;
  }
  // Pops write no record (probes.js): a push at depth b (its record at R[c - 1]) after a record
  // that left the stack deeper says that frames fell before it, not when: the gap between the
  // two is the fallen frames' and then their caller's (or idle time's), in unknown parts. By
  // default they fell at the push (the core pops them there): a long leaf's time stays its own
  // (leafAfterCalls). But a frame seen to run short (`short`: its last exact gap was short) fell
  // at the gap's start, so, from the top, while each fallen frame is one, it gets an exit record
  // right after the record before, at that record's stamp's time, when that record is stamped
  // and the gap is long: a long gap after short calls is their caller's (selfBetweenCalls; a
  // framework's DOM work after a helper returned). Then the push is stamped too, with the time
  // read here (`now`). Returns the cursor.
  let now;
  function fell(b, c) {
    const j = c - 3, // the record before the push
      v = R[j + 1],
      was = depthAfter(j),
      // (the frame that fell from depth b: the push's is there now; known when v pushed it)
      atB = v >>> ID_BITS === b ? v & ID_BIG : -1;
    if (was <= b) return c;
    const top = was - 1 > b ? S[B + was - 1] : atB;
    // (a slow frame's fall ends its gap: the push is stamped)
    if (P.F[top] === 1) now = nativeNow();
    let u = was - 1;
    while (u >= b && short[u > b ? S[B + u] : atB] > 0) u--;
    if (u + 1 >= was || lastK !== j || m + 4 > T.length) return c;
    if (!(now >= 0)) now = nativeNow();
    if (now - lastStamp < longMs) return c;
    R[c] = R[c - 1];
    R[c - 1] = ~(u + 1);
    T[m++] = ++lastK;
    T[m++] = lastStamp;
    short[top]--; // (one long gap fewer that it falls first in)
    firstOwner = u < b ? topAt(b) : u > b ? S[B + u] : atB;
    return c + 1;
  }
  // The probes' logger: at a push, b is the depth before it, c the cursor after its record and
  // id its frame; from the probes' microtask reset (the stack is empty), b is ~0 and c the
  // cursor (an exit record to depth 0 goes there). A push at depth AT_DEPTH or more, or of
  // frame ID_BIG or past it, becomes an exit to its depth and `HERE | id`. The common case (a
  // full window) is a stamp.
  function writer(b, c, id) {
    if (b < 0) {
      R[c++] = b;
      b = ~b;
    } else if (b >= AT_DEPTH || id >= ID_BIG) {
      R[c - 1] = ~b;
      R[c++] = HERE | id;
    } else c = fell(b, c);
    if (take(c) && (countdown <= 0 || b === 0 || now >= 0 || !neitherSlow(b))) stamp(n - 1, now);
    now = undefined;
    rearm();
  }

  st = {
    /** Register the probes' frames the core does not know yet. */
    frames() {
      // (the tables by frame id, twice as long as the frames registered)
      const grow = (a) => {
        const g = new a.constructor(P.n * 2);
        g.set(a);
        return g;
      };
      if (P.F.length < P.n) {
        P.F = grow(P.F);
        credit = grow(credit);
        short = grow(short);
      }
      for (; tables < P.t.length; tables++)
        base = readFrameTable(P.t[tables], base, (id, name, url, line, column) => {
          const nameLen = core.putString(name); // (a name is a string: readFrameTable)
          const total = core.putString(name + String(url));
          check(x.ps_instrument_frame(id, nameLen, total - nameLen, line >>> 0, column >>> 0));
        });
    },
    /** Hand the log over to the core (the window's records first, while logging). The last
     *  record is stamped if it is not yet: the core applies records after the last stamp at
     *  that stamp's time, so a stretch that no stamped record ended (a long first call, then
     *  stop() from inside the same task) was all sampled with the stack at the flush. */
    flush() {
      const c = P.w(R, 0, 0, 0); // (were the hand-over to throw, the log stays off)
      take(c);
      if (n > 0 && lastK < n - 1) stamp(n - 1);
      handOver();
      if (c) rearm();
    },
    /** A session on trace h; the core's stack is set to the probes' current one. */
    open(h, intervalMs) {
      if (logSessions.size) st.flush();
      else st.frames();
      const depth = Math.min(S[0], S.length - B);
      core.putU32(S.subarray(B, B + depth)); // the same bits as i32 words
      firstOwner = topAt(S[0]);
      lastK = -1; // the log is empty (flushed): the gap from now to the first record is exact
      countdown = 1; // the first record is stamped
      stride = STAMP_EVERY;
      // Every record is stamped until the records' rate is measured (RATE_MS of frames' time):
      // a long call among a session's first records, before any stamp separated them, was
      // spread over them (the frame that ran before it charged: 110 ms for 56 in WebKit).
      // The first rate is measured over one clock tick (RATE_MS on a fine clock), from the first
      // tick seen (the part of a tick before it is of unknown length), not over the 4 ticks the
      // later ones take: under a 1 ms clock every record stamped for 4-5 ms of a session cost
      // 10,000-18,000 clock reads in Firefox's marked render, a third of its stamps.
      sparse = 1;
      spanMs = 0;
      spanRecords = 0;
      measured = false;
      ticked = false;
      if (logSessions.size) rearm();
      if (!longMs) {
        const g = clockGranularity(); // before the start
        longMs = Math.max(LONG_MIN_MS, 2 * g);
        rateMs = Math.max(RATE_MS, 4 * g);
        firstRateMs = Math.max(RATE_MS, g);
      }
      lastStamp = nativeNow();
      return check(x.ps_instrument_start(h, intervalMs, lastStamp, depth));
    },
    close(session) {
      x.ps_instrument_stop(session);
    },
    until(session, t) {
      check(x.ps_instrument_until(session, t));
    },
    advance(session, until) {
      return check(x.ps_instrument_advance(session, until)) === 1;
    },
    /** Snapshots from the sampler worker: [time, depth, ...frame ids] repeated, those in
     *  (from, until] only. Returns true when the trace is full. */
    samples(session, batch, until, from = -Infinity) {
      st.frames();
      for (let i = 0; i < batch.length; ) {
        const t = batch[i],
          d = batch[i + 1];
        const ids = batch.subarray(i + 2, i + 2 + d);
        i += 2 + d;
        if (t > until || t <= from) continue;
        core.putU32(ids);
        if (check(x.ps_instrument_sample(session, t, d)) === 1) return true;
      }
      return false;
    },
    addLog(sampler) {
      if (logSessions.size === 0) {
        if (!at) at = x.ps_instrument_log(LOG_RECORDS, LOG_STAMPS) || check(PS_E_NOMEM);
        n = 0;
        m = 0;
        warmLogger(P);
        P.log(writer);
        rearm(); // sets the cursor: the probes log from now on
        function tick() {
          st.flush();
          const now = nativeNow();
          for (const s of [...logSessions]) if (st.advance(s.session, now)) s.full();
          if (logSessions.size) schedule();
        }
        function schedule() {
          pump = setTimeout(tick, PUMP_MS);
          if (pump && typeof pump.unref === 'function') pump.unref();
        }
        schedule();
      }
      logSessions.add(sampler);
    },
    removeLog(sampler) {
      if (!logSessions.delete(sampler) || logSessions.size) return;
      st.flush();
      P.w(R, 0, 0, 0);
      clearTimeout(pump);
      pump = null;
    },
  };
  states.set(core, st);
  return st;
}

class LogSampler {
  constructor(core, h, intervalMs, onFull) {
    this.st = stateOf(core);
    this.intervalMs = intervalMs;
    this.onFull = onFull;
    this.session = this.st.open(h, intervalMs);
    this.st.addLog(this);
    getProbes().use(1); // the probes keep the stack from now on (once the log could start)
  }

  full() {
    this.close();
    this.onFull();
  }

  async stop(until) {
    if (this.session === 0) return;
    try {
      this.st.flush();
      this.st.advance(this.session, until);
    } finally {
      this.close(); // (a core error above still ends the session and the switch's use)
    }
  }

  close() {
    if (this.session === 0) return;
    const session = this.session;
    this.session = 0;
    try {
      this.st.removeLog(this);
      this.st.close(session);
    } finally {
      getProbes().use(-1);
    }
  }
}

// The sampler worker: for each session it is given, every interval a snapshot of the shared
// stack (depth, frame ids) with the time on the page's clock; batches go back every POST_MS;
// ctl[0] = 1 ends the session (the last batch comes with `done`); it also writes its start time
// into the control block (f64 at byte 8, then ctl[1] = 1), which the page reads without waiting
// for the `started` message. Between sessions it waits for
// the next one in its event loop: workers are kept in a pool, so a profiler after the first
// starts sampling at once.
// The worker's code is this function's text (a bundler minifies it with the rest): it must stay
// self-contained, and is called with the stack's base, POST_MS and Node's port (null in a web
// worker, where `require` is not defined). Its functions are methods or bound to no name: the
// dist's keepNames wraps a function bound to a name in its `__name` helper, which the worker
// does not have.
function samplerWorker(base, postMs, port) {
  const w = {
    post(m) {
      if (port) port.postMessage(m);
      else postMessage(m);
    },
    start(d) {
      const S = new Int32Array(d.stack),
        C = new Int32Array(d.ctl),
        iv = d.interval;
      const off = performance.timeOrigin - d.origin;
      let batch = [],
        last = performance.now(),
        next = last + iv;
      new Float64Array(d.ctl, 8, 1)[0] = last + off;
      Atomics.store(C, 1, 1);
      w.post({ started: last + off });
      for (;;) {
        const wait = next - performance.now();
        if (wait > 0) Atomics.wait(C, 0, 0, wait);
        if (Atomics.load(C, 0) !== 0) break;
        const t = performance.now();
        const depth = Math.min(Atomics.load(S, 0), S.length - base);
        batch.push(t + off, depth);
        for (let k = base; k < depth + base; k++) batch.push(S[k]);
        next += iv;
        if (next < t) next = t + iv;
        if (t - last >= postMs) {
          w.post({ batch: Float64Array.from(batch) });
          batch = [];
          last = t;
        }
      }
      w.post({ done: true, batch: Float64Array.from(batch) });
    },
  };
  if (port) port.on('message', (d) => w.start(d));
  else self.onmessage = (e) => w.start(e.data);
}
const WORKER_SOURCE = `(${samplerWorker})(${B},${POST_MS},typeof self=='object'?null:require('node:worker_threads').parentPort)`;

/** A sampler worker: {on(message), post, ref, unref}; messages go to its current `owner`. */
function spawnWorker(code) {
  const proc = globalThis.process;
  let w, api;
  if (proc && proc.versions && proc.versions.node && typeof proc.getBuiltinModule === 'function') {
    const { Worker } = proc.getBuiltinModule('node:worker_threads');
    w = new Worker(code, { eval: true });
    api = { post: (m) => w.postMessage(m), ref: () => w.ref(), unref: () => w.unref() };
    w.on('message', (m) => api.owner && api.owner.message(m));
  } else {
    const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
    try {
      w = new Worker(url);
    } finally {
      URL.revokeObjectURL(url);
    }
    api = { post: (m) => w.postMessage(m), ref() {}, unref() {} };
    w.onmessage = (e) => api.owner && api.owner.message(e.data);
  }
  api.owner = null;
  api.unref();
  return api;
}

const pool = []; // idle sampler workers

class SharedSampler {
  constructor(core, h, intervalMs, onFull) {
    this.st = stateOf(core);
    this.intervalMs = intervalMs;
    this.onFull = onFull;
    // [0] stop, [1] started (the worker's start time is the f64 at byte 8)
    this.ctl = new Int32Array(new SharedArrayBuffer(16));
    const pooled = pool.pop();
    this.worker = pooled || spawnWorker(WORKER_SOURCE);
    this.worker.owner = this;
    // Until a new worker has started (tens of milliseconds, more on a loaded machine), the log
    // sampler covers the session; the worker's samples start after that. A pooled worker gets
    // the session on its own event loop at once, busy page or not.
    this.early = pooled
      ? null
      : new LogSampler(core, h, intervalMs, () => {
          this.close();
          onFull();
        });
    this.session = this.st.open(h, intervalMs);
    getProbes().use(1); // the probes keep the stack from now on
    this.st.until(this.session, -Infinity); // its samples come from the worker, never from the log
    this.until = Infinity;
    this.from = -Infinity; // the worker's samples count after this time (see endEarly)
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.worker.post({
      stack: getProbes().S.buffer,
      ctl: this.ctl.buffer,
      interval: intervalMs,
      origin: timeOrigin,
    });
  }

  message(m) {
    if (m.started !== undefined) this.endEarly(m.started);
    if (
      m.batch &&
      this.session !== 0 &&
      this.st.samples(this.session, m.batch, this.until, this.from)
    ) {
      this.close();
      this.onFull();
    }
    if (m.done) {
      // The session is over on the worker's side: it can serve the next profiler.
      this.worker.owner = null;
      this.worker.unref();
      pool.push(this.worker);
      this.resolveDone();
    }
  }

  endEarly(t) {
    const early = this.early;
    this.early = null;
    if (!early || early.session === 0) return;
    // The log sampler covers the session up to t, the worker after it: a worker whose start
    // was not known yet (stop() while its message waits, no started flag) sampled that stretch
    // too.
    this.from = t;
    early.st.until(early.session, t);
    early.st.flush();
    early.st.advance(early.session, t);
    early.close();
  }

  async stop(until) {
    if (this.session === 0) return;
    this.until = until;
    try {
      if (this.early) {
        // A worker that started while this task ran has sampled since then (its `started`
        // message is still queued): the log sampler gives way to it there.
        const started =
          Atomics.load(this.ctl, 1) === 1 ? new Float64Array(this.ctl.buffer, 8, 1)[0] : until;
        this.endEarly(Math.min(started, until));
      }
      this.worker.ref();
      Atomics.store(this.ctl, 0, 1);
      Atomics.notify(this.ctl, 0);
      await this.done;
    } finally {
      this.close(); // (a core error above still ends the session and the switch's use)
    }
  }

  close() {
    if (this.session === 0) return;
    const session = this.session;
    this.session = 0;
    Atomics.store(this.ctl, 0, 1);
    Atomics.notify(this.ctl, 0);
    const early = this.early;
    this.early = null;
    try {
      if (early) early.close();
    } finally {
      try {
        this.st.close(session);
      } finally {
        getProbes().use(-1);
      }
    }
  }
}

/** Whether the shared sampler can run here. */
export function sharedAvailable() {
  return (
    typeof SharedArrayBuffer === 'function' &&
    typeof Atomics === 'object' &&
    globalThis.crossOriginIsolated !== false &&
    (typeof Worker === 'function' ||
      !!(globalThis.process && globalThis.process.versions && globalThis.process.versions.node))
  );
}

/**
 * The instrumentation source. `mode`: 'auto' (shared where available, else log), 'shared' or
 * 'log'. In a window or a worker (where the spec's policy check can allow profiling) it can
 * profile at once, before any instrumented code ran: an SDK that starts first gets a session,
 * and frames registered later join it. Elsewhere (Node without its inspector, other runtimes)
 * only once the realm's code was instrumented (a frame table exists).
 */
export function createInstrumentSource({ mode = 'auto' } = {}) {
  return {
    name: 'instrument',
    available() {
      if (isWindow || isWorker) return true;
      const P = globalThis[Symbol.for(PROBES_KEY)];
      return !!(P && P.n > 0);
    },
    supportedIntervalMs,
    start(codec, h, intervalMs, maxBufferSize, onFull, core) {
      if (!this.available())
        throw domException('NotAllowedError', 'no instrumented code in this context');
      // (the probes' stack is shared memory wherever SharedArrayBuffer exists: probes.js)
      const shared =
        (mode === 'shared' || (mode === 'auto' && sharedAvailable())) &&
        typeof SharedArrayBuffer === 'function' &&
        getProbes().S.buffer instanceof SharedArrayBuffer;
      return shared
        ? new SharedSampler(core, h, intervalMs, onFull)
        : new LogSampler(core, h, intervalMs, onFull);
    },
  };
}

export const instrumentSource = createInstrumentSource();
