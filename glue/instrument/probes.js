// The probes an instrumented script calls (glue/instrument/transform.js puts them in). One probe
// object per realm, under globalThis[Symbol.for(PROBES_KEY)], shared by every
// instrumented script and by the Profiler's instrumentation source (glue/instrument/source.js).
// An instrumented script must run without perfshim loaded, so the transform inlines
// `createProbes`'s own text (Function.prototype.toString) as the fallback: this function is the
// only definition of the probes and must stay self-contained (no imports, no outer names).
//
// Data: one Int32Array `S`. S[0] is the depth; S[B + i] the frame id at depth i, B = STACK_BASE =
// 258 (frames deeper than the array are counted but not stored: a typed array ignores writes past
// its end; S[1 .. B) are unused since the records went into the logger's own array, below).
// `F` (Uint8Array, by frame id) is 1 for a slow frame (the log sampler keeps it:
// glue/instrument/source.js). Each script registers its frame table
// once, `reg(n, urls, names, at)`: n frames; names, one per frame, in one text joined by its
// first character (a comma unless a name holds one); at, per frame the index into urls when
// there are several, the line as a difference from the frame before's, and the column, as a
// difference from the frame before's too when the line is the same (a minified line holds many
// functions), in base 36, joined by commas. `reg` only keeps its arguments and hands out the
// frame ids; the profiler reads the text (`readFrameTable`, below), so the decoding is not in
// every instrumented bundle (since probes.11; the text is smaller than arrays of numbers and
// names, too).
//
// The switch: the stack is kept only while a profiler runs (`use(+1)` when a session starts,
// `use(-1)` when it ends; the instrumentation source calls them). The switch is one object of
// the probes', `C` ({o: 0 or 1}), that every file's header binds to its own `__pso` and every
// function reads (`__pso.o`): a binding the file's functions read, so no minifier can drop
// it and no garbage collection can take it (stop 22 gave each file a boolean and a setter the
// probes held weakly; a bundler dropped the write-only binding that kept the setter, and after a
// full GC no profiler could switch the file on: 0 stacks). Nothing is registered per file, so a
// file evaluated again and again (a module reloaded, a script factory re-run) leaves nothing
// behind. With no profiler, a function's probes are that read and tests of its `t` (0).
// The price: a frame that was already running when the switch went on is not on the stack
// (its callees are, and an async function is again from its next resume); one entered while on
// pops at its exit even after the switch went off, so the stack stays balanced.
// Protocol (what the transform emits per function, docs/instrument.md; the file's header binds
// the switch `C`, `P` itself, and `P.r`, `P.e` and `P.S` to names of its own: a probe a call
// of a binding, not a property read and a call). Every function, ordinary, async or
// generator, the same text but for its frame id, and no `try` around the body:
//     let t = C.o && e(id);        (a generator's and an async function's: `let t = e(id)`)
//     body, each `return E` as `return r((E), t)` (where E calls nothing: `return (POP, E)`),
//       each `catch`/`finally` clause opening with `t && P.k(t)` (a `finally` also pops at its
//       end, and the frame is the top again after the `try` statement)
//     ;POP                          POP: `t && (S[0] = t - 1)`
// (so `e` reads nothing through `this`, and `S` is the same array for the probes' life)
// `t` is the frame's depth with it on the stack (0: not pushed, the switch was off). The push is
// a call, out of line: with no profiler it is not made (`C.o` is 0, and so is `t`), and one text
// per function leaves gzip long repeats (inline pushes and logging tests, with locals a
// minifier names per function, cost ~37 B gzipped a function; issue 25). The pop is a store of
// the depth before the frame, and calls nothing (since probes.13: in SpiderMonkey a call on the
// exits' paths, once a profiler made them taken, slowed the instrumented functions for the
// rest of the page, even with `x` an empty function: Preact's render 1.35x after a session and
// 1.70x while profiling, 1.01x and 1.30x without; docs/instrument.md).
// `e` pushes and returns the depth after the push (0 while the switch is off); a pop restores
// the depth before it (so an exception, an early return or a frame an uninstrumented callback
// left behind cannot unbalance the stack; a second exit to the same depth changes nothing):
// `x(t)` does it and returns 0, `r(v, t)` does it and returns v. At a suspension point (await,
// yield) the frame is popped after the operand is evaluated, `t` becomes 0, and the resume
// re-enters at whatever depth the resumer has:
//   __ps.p(await __ps.p(X, t = __ps.x(t)), t = __pse(id))
// `x(0)` does nothing, so a function that ends while suspended pops nothing twice.
// An exception that leaves a function skips its pop: the frame's caller repairs the depth at
// its next `catch`/`finally` (`k`), and the reset queued by a push at depth 0 (`e`: a
// microtask, which runs with an empty JS stack, once until it ran) sets the depth back to 0.
// The log: while a profiler logs, every push is a record written into the logger's array `W` at
// the cursor `c`, which then moves on: `d << 21 | id`, the frame id and the depth it is pushed
// at (below 2^21 and 1023: the logger sees to it, below). A pop writes nothing: the next push's
// depth says how far the stack fell before it (since probes.12: a record a call instead of two;
// Firefox's log sampler on marked 1.44x against 1.51x, 160 rounds side by side), and the reset
// says when it fell to 0 (the logger writes that record). The logger (set by `log(f)`) is called
// as `L(d, c, id)` at a push, d the depth before it and c the cursor after its record, and as
// `L(~0, c)` by the reset. It sets the array, the cursor (0: no log), the window's end `E` and
// the depth limit `D` with `w(W, c, E, D)`, all four closure variables (`var`s: no hole
// checks), so a record is one typed-array store and no copy (until probes.11's first form the
// probes wrote into a window S[3 .. 258) that the logger copied: Firefox's log sampler on marked
// 1.69x against 1.58x). A push calls the logger when its cursor reaches E (the window is full),
// it is at a depth up to D (-1 while no logger logs), or it pushes a slow frame (`F`). The log
// sampler keeps D one past the deepest slow frame on the stack (0 with none), so the logger
// sees every push at depth 0 and every push next to a slow frame's gaps (its own or its
// caller's), which is where the stack fell back to after a slow frame's return. It sets D past
// any depth when a push could reach depth 1023 before its next call (a stack 767 deep) or the
// realm has frame ids past 2^21 - 2 (`reg` does it at once), and writes those pushes itself.
// The logger takes the window's records and sets the next window's end, so the window's size is
// how many records pass before the next call: most records make no call (with a call a record,
// until stop 19, the log sampler's marked render took 1.5-1.6x in Firefox; 1.3x since).
// Switching is a closure variable's store, never a change to `P` itself, so the probes' inline
// caches stay monomorphic across profiler sessions (a second load, `P.on[0]`, as before
// probes.10 made every call 6-7 ns slower in SpiderMonkey and 1.3 ns in V8, and a bound check 1.7
// / 0.4 ns: ns per instrumented call, in-page micro-bench, no profiler running).
export function createProbes() {
  // Shared memory from the start where it exists, so that the probes only ever see one kind of
  // array (a later swap would make them polymorphic, slower for the rest of the page's life).
  // The probes read the stack and the logger from this closure, not from `P`, and both are
  // `var`s (a `const`/`let` read from a closure carries a hole check): a smaller probe leaves
  // V8 more of its inlining budget (bytecode per optimized function) for the instrumented code.
  // 258: STACK_BASE (below).
  var SAB = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer;
  var S = new Int32Array(new SAB(8192));
  // The switch (see above): on while any profiler session uses the stack.
  var C = { o: 0 };
  var users = 0;
  // No logger: logging stops (a cursor set without one would run into the stack).
  var L = function L() {
    c = 0;
    D = -1;
  };
  // The stack is empty whenever a microtask runs (the host runs them with no script on its
  // stack), so a reset queued while a profiler runs drops whatever an exception left: frames
  // that threw past every instrumented `catch` of theirs (bodies have no `try`: exits are
  // probed at returns, see the protocol above), and tells a logger that the stack is empty
  // (pops call nothing: this is where the log learns that a task's script ended). Queued (`A`)
  // once until it ran, by a push at depth 0 (the stack grows from 0 only through one) and by a
  // push that calls the logger.
  var pending = 0;
  var Q = typeof queueMicrotask === 'function' ? queueMicrotask : null;
  var reset = function reset() {
    pending = 0;
    S[0] = 0;
    if (c) L(-1, c);
  };
  var A = function A() {
    if (pending === 0 && Q !== null) {
      pending = 1;
      Q(reset);
    }
  };
  // The log (see above): the record at W[c], c the cursor (0: no log), the logger called when
  // the cursor reaches E or a change is at a depth up to D; all four set by the logger (`w`).
  var W = S,
    c = 0,
    E = 0,
    D = -1;
  var P = {
    S,
    /** The slow frames (1 by frame id), grown and kept by the log sampler. */
    F: new Uint8Array(0),
    /** Frames registered so far (the next file's first frame id), and each file's frame table
     *  as registered, the arguments of `reg` (readFrameTable reads them). */
    n: 0,
    t: [],
    /** Sets the logger the cursor calls. */
    log(f) {
      L = f;
    },
    /** The logger's: records go to array a from index x on (0: none), the logger called when the
     *  cursor reaches y or a change is at a depth up to z. Returns the cursor it replaces. */
    w(a, x, y, z) {
      var o = c;
      W = a;
      c = x;
      E = y;
      D = x ? z : -1;
      return o;
    },
    /** The switch every file's functions test (`__pso.o`): 1 while any session uses the stack. */
    C,
    /** A profiler session starts (+1) or ends (-1): the switch is on while any runs. */
    use(d) {
      users += d;
      C.o = users > 0 ? 1 : 0;
    },
    reg(n) {
      P.t.push(arguments);
      // (ids past 2^21 - 2 do not fit a record: the logger writes their pushes, see above)
      if (c && P.n + n > 0x1ffffe) D = 1e9;
      return (P.n += n) - n;
    },
    e(id) {
      if (!C.o) return 0;
      var d = S[0];
      S[d + 258] = id;
      S[0] = d + 1;
      if (c === 0) {
        if (d === 0) A();
      } else {
        W[c] = (d << 21) | id;
        if (++c === E || d <= D || P.F[id] === 1) {
          A();
          L(d, c, id);
        }
      }
      return d + 1;
    },
    x(t) {
      if (t > 0) S[0] = t - 1;
      return 0;
    },
    r(v, t) {
      if (t > 0) S[0] = t - 1;
      return v;
    },
    /** A `catch` or `finally` of a function at frame depth t (t > 0): its frame is the top
     *  again (callees an exception left behind are dropped). */
    k(t) {
      S[0] = t;
    },
    /** The identity, around an await or a yield: `p(await p(X, pop), push)`. */
    p(v) {
      return v;
    },
  };
  // (The logger's call site is warmed up by the log sampler before its first logger:
  // warmLogger in glue/instrument/source.js.)
  return P;
}

/** Reads one frame table as `reg` kept it (its arguments), whose first frame id is `base`:
 *  each(id, name, url, line, column) for each of its frames, in order. Returns the next
 *  table's first id. */
export function readFrameTable([count, urls, names, at], base, each) {
  const n = at.split(',');
  const list = names.slice(1).split(names[0]);
  const w = urls.length > 1 ? 3 : 2;
  let line = 0,
    col = 0;
  for (let i = 0; i < list.length; i++) {
    const dl = parseInt(n[i * w + w - 2], 36);
    line += dl;
    col = (dl === 0 ? col : 0) + parseInt(n[i * w + w - 1], 36);
    each(base + i, list[i], urls[w > 2 ? parseInt(n[i * w], 36) : 0], line, col);
  }
  return base + count;
}

/** The frame table of probe object `P`: [name, url, line, column] by frame id. */
export function probeFrames(P) {
  const frames = [];
  let base = 0;
  for (const t of P.t) base = readFrameTable(t, base, (id, ...frame) => (frames[id] = frame));
  return frames;
}

/** Where the stack starts in the probes' array (S[STACK_BASE + i]: the frame at depth i). The
 *  same number is written inside `createProbes`. */
export const STACK_BASE = 258;

// Versioned: files instrumented for another layout of the probes keep a probe object of their
// own (not profiled) instead of misreading this one.
export const PROBES_KEY = 'perfshim.probes.13';

/** The probe object of this realm (created if no instrumented script ran yet). */
export function getProbes() {
  const key = Symbol.for(PROBES_KEY);
  return globalThis[key] || (globalThis[key] = createProbes());
}
