// The probes an instrumented script calls (glue/instrument/transform.js puts them in). One probe
// object per realm, under globalThis[Symbol.for(PROBES_KEY)], shared by every
// instrumented script and by the Profiler's instrumentation source (glue/instrument/source.js).
// An instrumented script must run without perfshim loaded, so the transform inlines
// `createProbes`'s own text (Function.prototype.toString) as the fallback: this function is the
// only definition of the probes and must stay self-contained (no imports, no outer names).
//
// Data: a shadow stack `S` (Int32Array): S[0] is the depth, S[1] the switch (below), S[2 + i]
// the frame id at depth i (frames deeper than the array are counted but not stored: a typed
// array ignores writes past its end). `frames` is the frame table:
// [name, url, line, column] per frame id, registered once per script by `reg(urls, list)`
// (list: name, index into urls, line, column per frame).
//
// Protocol (what the transform emits per function; `__pss` is `S`, read once per file, by the
// file's header or by the first of its functions to run, whichever comes first):
//   ordinary functions push and pop inline, and call the logger through `l` only while S[1] is on:
//     let t = S[0], v; S[t + 2] = id; S[0] = t + 1; if (S[1]) __ps.l(id, t);
//     l: try { body } catch (e) { __ps.x(t); throw e; }
//     S[0] = t; if (S[1]) __ps.l(-1, t); return v;
//   async functions and generators call the probes:
//     let t = __ps.e(id), v;
//     l: try { body } catch (e) { __ps.x(t); throw e; }
//     return __ps.r(v, t);
// with every `return E` of the body as `{ v = E; break l; }` (generators:
// `try { body } finally { __ps.x(t); }`). Inline, an ordinary function costs no probe call while
// no profiler runs (SpiderMonkey inlined none of the calls: ~11 ns a call against ~6 inline).
// `e` pushes and returns the depth before the push; `x(t)` restores that depth (so an exception,
// an early return or a frame an uninstrumented callback left behind cannot unbalance the stack;
// a second exit to the same depth changes nothing) and returns -1; `r(v, t)` does the same and
// returns v. At a suspension point (await, yield) the frame is popped after the operand is
// evaluated, `t` becomes -1, and the resume re-enters at whatever depth the resumer has:
//   __ps.q(await __ps.p(X, t = __ps.x(t)), t = __ps.e(id))
// `x(-1)` does nothing, so a function that ends while suspended pops nothing twice.
// While a profiler logs, the switch S[1] is 1 and the logger (set by `log(f)`) gets every
// change: (id, depth) for an enter, (-1, depth) for an exit. Switching is a typed-array store,
// never a change to `P` itself, so the probes' inline caches stay monomorphic across profiler
// sessions; and the switch
// sits in the array the probes load anyway: a second load (`P.on[0]`, as before) made every
// call 6-7 ns slower in SpiderMonkey and 1.3 ns in V8, and a bound check 1.7 / 0.4 ns (ns per
// instrumented call, in-page micro-bench, no profiler running).
// `onframes(first)` learns of frames registered later.
export function createProbes() {
  // Shared memory from the start where it exists, so that the probes only ever see one kind of
  // array (a later swap would make them polymorphic, slower for the rest of the page's life).
  // The probes read the stack and the logger from this closure, not from `P`, and both are
  // `var`s (a `const`/`let` read from a closure carries a hole check): a smaller probe leaves
  // V8 more of its inlining budget (bytecode per optimized function) for the instrumented code.
  const SAB = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer;
  var S = new Int32Array(new SAB(4096));
  var L = function L() {};
  const P = {
    S,
    /** The logger the inline push and pop call (switched on): (id, depth) or (-1, depth). */
    l: L,
    frames: [],
    onframes: null,
    /** The logger S[1] switches on: the probes' `L`, and `l` itself, which the inline pushes
     *  and pops call directly (one call a record instead of two: in Firefox the log sampler
     *  ran at 1.52x against 1.69x with `l` forwarding to `L`). */
    log(f) {
      L = f;
      P.l = f;
    },
    reg(urls, list) {
      const base = P.frames.length;
      for (let i = 0; i + 3 < list.length; i += 4)
        P.frames.push([list[i], urls[list[i + 1]], list[i + 2], list[i + 3]]);
      if (P.onframes) P.onframes(base);
      return base;
    },
    e(id) {
      const s = S,
        d = s[0];
      s[d + 2] = id;
      s[0] = d + 1;
      if (s[1]) L(id, d);
      return d;
    },
    x(t) {
      if (t >= 0) {
        const s = S;
        s[0] = t;
        if (s[1]) L(-1, t);
      }
      return -1;
    },
    r(v, t) {
      if (t >= 0) {
        const s = S;
        s[0] = t;
        if (s[1]) L(-1, t);
      }
      return v;
    },
    p(v) {
      return v;
    },
    q(v) {
      return v;
    },
  };
  // The probes' logger call sites see two functions before any other use, so V8 never inlines a
  // logger into the probes (and with them into every instrumented function, profiled or not,
  // where an inlined logger made calls ~1.5 ns slower): a plain call behind the switch. (The
  // inline pushes and pops of ordinary functions call `l`, the logger itself, directly: with
  // that, the rows after a profiling session did not move in marked, stop 19.)
  const idle = L;
  S[1] = 1;
  for (const f of [() => {}, idle]) {
    L = f;
    for (let i = 0; i < 32; i++) {
      P.x(P.e(0));
      P.r(i, P.e(0));
    }
  }
  S[1] = 0;
  return P;
}

// Versioned: files instrumented for another layout of the probes keep a probe object of their
// own (not profiled) instead of misreading this one.
export const PROBES_KEY = 'perfshim.probes.4';

/** The probe object of this realm (created if no instrumented script ran yet). */
export function getProbes() {
  const key = Symbol.for(PROBES_KEY);
  return globalThis[key] || (globalThis[key] = createProbes());
}
