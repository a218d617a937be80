// The transform's exits (no `try` around bodies: `return E` → `return __psr((E), __pst)`, the
// body's end pops; a `catch`/`finally` repairs the depth, and
// the probes' microtask reset drops what an uncaught exception left): values pass through
// unchanged, exceptions exit, only a function's own returns are rewritten, a user's `finally`
// after a return, and generators/async functions.
import test from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { instrument } from './fixtures/instrument-every-function.mjs';
import {
  createProbes,
  getProbes,
  probeFrames,
  PROBES_KEY,
  STACK_BASE,
} from '../../glue/instrument/probes.js';
import { loadCore } from '../../glue/host/loader.js';
import { createProfilerClass } from '../../glue/profiler/profiler.js';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { assertTraceInvariants } from './profiler-helpers.mjs';

const tick = () => new Promise((r) => queueMicrotask(r));
const load = (code) => import(`data:text/javascript,${encodeURIComponent(code)}#${Math.random()}`);
const P = getProbes();
// The probes keep the stack only while a profiler runs (probes.js); these tests read it without
// one, so the switch is on for the whole file (as a running profiler would hold it).
P.use(1);
// A module instrumented with a probe object of its own (the probes' key renamed): {m, Q}.
// `before(Q)` runs before the module's header binds Q's probes.
async function withOwnProbes(name, source, before = () => {}) {
  const key = `perfshim.test.${name}.${Math.random()}`;
  const out = instrument(source, { file: `${name}.js` }).code;
  const Q = (globalThis[Symbol.for(key)] = createProbes());
  before(Q);
  const m = await load(out.replaceAll(JSON.stringify(PROBES_KEY), JSON.stringify(key)));
  Q.use(1);
  return { m, Q };
}
const CHAIN =
  'export function leaf(x) { return x + 1; }\n' +
  'export const arrow = (x) => leaf(x) * 2;\n' +
  'export function mid(x) { const o = { m() { return arrow(x); } }; return o.m(); }\n';

/** The names on the shadow stack, outermost first. */
function stackNames() {
  const names = [];
  for (let i = 0; i < P.S[0]; i++) names.push(probeFrames(P)[P.S[i + STACK_BASE]][0]);
  return names;
}

// A sloppy script (with, ASI after `return`): the completion value of the last line.
const returnForms = `(function forms() {
  function seq(a) { return a, a + 1; }
  function asi(a) { return
    a; }
  function bare() { return; }
  function none() { 1 }
  function obj() { return { k: 1 }; }
  function fnv() { return function () { return 'inner'; }; }
  function sw(x) { lab: switch (x) { case 1: case 2: return 'one or two'; case 3: break lab; default: return 'other'; } return 'after'; }
  function w(o) { with (o) { return x + 1; } }
  function cond(x) { if (x) return x > 1 ? 'big' : 'one'
    else return /re/.source }
  function paren(a) { return(a, a * 2) }
  function tpl(a) { return \`t\${a}\` }
  function tight(a) { return{k:a}.k+[a][0]+-a+!a+"s"+\`\${a}\` }
  const arrow = (x) => x * 2;
  const arrowObj = () => ({ k: 2 });
  const arrowSeq = (x) => (x, x + 3);
  class A { constructor(v) { this.v = v; return; } get g() { return this.v; } set g(v) { this.v = v; return 'ignored'; } }
  class B extends A { constructor(o) { super(1); if (o) return o; } }
  class C extends A { constructor() { return; } }
  class D extends A { constructor() { super(2); return 5; } }
  const a = new A(3);
  a.g = 4;
  const errs = [C, D].map((K) => { try { new K(); return 'no error'; } catch (e) { return e.constructor.name; } });
  return [seq(1), asi(1), bare(), none(), obj(), fnv()(), sw(1), sw(3), sw(9), w({ x: 1 }),
    cond(2), cond(1), cond(0), paren(3), tpl(4), tight(1), arrow(2), arrowObj(), arrowSeq(1), a.g, new B().v,
    new B({ own: 1 }), errs];
})()`;

test('every form of return passes its value through unchanged', async () => {
  const plain = vm.runInThisContext(returnForms);
  const out = instrument(returnForms, { file: 'forms.js' }).code;
  // (a value that calls nothing returns after the pop; one that calls passes through __psr)
  assert.ok(
    out.includes('return  (__pst&&(__ps13_s[0]=__pst-1),a, a + 1)'),
    'a comma expression in parentheses',
  );
  assert.ok(out.includes('return  __ps13_r((function () {'), 'a function made');
  assert.ok(
    out.includes('return void(__pst&&(__ps13_s[0]=__pst-1))\n'),
    'return + newline: returns nothing',
  );
  const got = vm.runInThisContext(out);
  assert.deepEqual(got, plain);
  assert.deepEqual(got, [
    2,
    undefined,
    undefined,
    undefined,
    { k: 1 },
    'inner',
    'one or two',
    'after',
    'other',
    2,
    'big',
    'one',
    're',
    6,
    't4',
    '1s1',
    4,
    { k: 2 },
    4,
    4,
    1,
    { own: 1 },
    ['ReferenceError', 'TypeError'],
  ]);
  await tick();
  assert.equal(P.S[0], 0, 'every frame exited');
});

test('an exception exits every frame it leaves, and a caught one keeps the catcher', async () => {
  const m = await load(
    instrument(
      'export function inner(n) { if (n === 0) throw new RangeError("deep"); return inner(n - 1) + 1; }\n' +
        'export function arg(p) { return p(inner(0)); }\n' +
        'export function catches(p) { try { inner(3); } catch (e) { return [e.name, p()]; } }\n' +
        'export const arrow = (n) => inner(n);',
      { file: 'throws.js' },
    ).code,
  );
  for (const f of [() => m.inner(5), () => m.arg(stackNames), () => m.arrow(2)]) {
    assert.throws(f, (e) => e.constructor === RangeError && e.name === 'RangeError');
    await tick();
    assert.equal(P.S[0], 0, 'the microtask after an uncaught exception resets the stack');
  }
  assert.deepEqual(m.catches(stackNames), ['RangeError', ['catches']]);
  assert.equal(P.S[0], 0);
});

test("a return exits only its own function's frame", async () => {
  const src =
    'export function outer(p) {\n' +
    '  const a = () => { return p(); };\n' +
    '  function b() { return 2; }\n' +
    '  const c = () => 3;\n' +
    '  const o = { m() { return 4; } };\n' +
    '  function d() { o.m(); }\n' +
    '  const inner = [a(), b(), c(), o.m(), d(), p()];\n' +
    '  return [inner, p()];\n' +
    '}';
  const out = instrument(src, { file: 'nested.js' }).code;
  // an exit at the end of each block body (a, b, m, d, outer); one per return: through __psr
  // where the value calls (a, outer), after the pop where it does not (b, m, and c's expression
  // body)
  assert.equal(out.split(';__pst&&(__pss[0]=__pst-1);').length - 1, 5);
  assert.equal(out.split('__psr((').length - 1, 2);
  assert.equal(out.split('return  (__pst&&(__pss[0]=__pst-1),').length - 1, 2);
  assert.equal(out.split('return(__pst&&(__pss[0]=__pst-1), 3)').length - 1, 1);
  const m = await load(out);
  assert.deepEqual(m.outer(stackNames), [
    [['outer', 'a'], 2, 3, 4, undefined, ['outer']],
    ['outer'],
  ]);
  assert.equal(P.S[0], 0);
});

test("a user's finally after a return runs inside the frame; a throwing one exits it once", async () => {
  const m = await load(
    instrument(
      'export let seen;\n' +
        'export function fin(p) { try { return "v"; } finally { seen = p(); } }\n' +
        'export function override() { try { return 1; } finally { return 2; } }\n' +
        'export function throwsAfter() { try { return 1; } finally { throw new TypeError("f"); } }\n' +
        'export function caller(p) { return [fin(p), p()]; }',
      { file: 'finally.js' },
    ).code,
  );
  // The return exits before its finally runs; the finally repairs the frame back onto the top.
  assert.deepEqual(m.caller(stackNames), ['v', ['caller']]);
  assert.deepEqual(m.seen, ['caller', 'fin']);
  assert.equal(m.override(), 2);
  assert.throws(m.throwsAfter, (e) => e.constructor === TypeError && e.name === 'TypeError');
  await tick();
  assert.equal(P.S[0], 0);
});

test('a return through an empty finally exits its frame (ordinary functions and generators)', async () => {
  const m = await load(
    instrument(
      'export function f() { try { return 1; } finally {} }\n' +
        'export function* g() { try { return 2; } finally {} }\n' +
        'export async function h() { try { return 3; } finally {} }',
      { file: 'empty-finally.js' },
    ).code,
  );
  assert.equal(m.f(), 1);
  assert.equal(P.S[0], 0, 'f');
  assert.deepEqual([...m.g()], []);
  assert.equal(P.S[0], 0, 'g');
  assert.equal(await m.h(), 3);
  assert.equal(P.S[0], 0, 'h');
});

test('generators and async functions: returns, gen.return() and an awaiting finally exit', async () => {
  const m = await load(
    instrument(
      'export let seen = [];\n' +
        'export async function af(p) { await null; return [await 5, p()]; }\n' +
        'export async function afin(p) { try { return 1; } finally { await null; seen.push(p()); } }\n' +
        'export const aa = async (x) => (await x) + 1;\n' +
        'export function* g(p) { try { yield 1; } finally { seen.push(p()); } return "done"; }\n' +
        'export async function* ag(p) { try { yield 1; await null; yield 2; } finally { seen.push(p()); } }\n' +
        'export async function consume(p) { for await (const v of ag(p)) { if (v === 2) return v; } }',
      { file: 'suspend.js' },
    ).code,
  );
  assert.deepEqual(await m.af(stackNames), [5, ['af']]);
  assert.equal(P.S[0], 0);
  assert.equal(await m.afin(stackNames), 1);
  assert.equal(P.S[0], 0, 'the frame re-entered by the finally exits with the return');
  assert.equal(await m.aa(Promise.resolve(1)), 2);
  assert.equal(P.S[0], 0);
  const it = m.g(stackNames);
  assert.deepEqual(it.next(), { value: 1, done: false });
  assert.deepEqual(it.return('stop'), { value: 'stop', done: true });
  await tick();
  assert.equal(P.S[0], 0, 'the frame the finally re-entered is dropped by the next microtask');
  assert.deepEqual([...m.g(stackNames)], [1]);
  assert.equal(P.S[0], 0);
  assert.equal(await m.consume(stackNames), 2);
  assert.equal(P.S[0], 0);
  assert.deepEqual(m.seen, [['afin'], ['g'], ['g'], ['ag']]);
});

test('the log sampler takes a repeated exit (a throwing finally after a return) in its stride', async () => {
  const m = await load(
    instrument(
      'export function spin(n) { let s = 0; for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003; return s; }\n' +
        'export function twice() { try { return spin(100); } finally { throw new TypeError("again"); } }\n' +
        'export function outer(ms) { const end = Date.now() + ms; let k = 0;\n' +
        '  while (Date.now() < end) { try { twice(); } catch { k++; } spin(2000); } return k; }',
      { file: 'https://example.test/repeat.js' },
    ).code,
  );
  const Profiler = createProfilerClass(loadCore(), {
    source: createInstrumentSource({ mode: 'log' }),
  });
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  assert.ok(m.outer(60) > 0);
  const t = await p.stop();
  assertTraceInvariants(t);
  let named = 0;
  for (const s of t.samples) {
    if (s.stackId === undefined) continue;
    const names = [];
    for (let id = s.stackId; id !== undefined; id = t.stacks[id].parentId)
      names.unshift(t.frames[t.stacks[id].frameId].name);
    assert.match(names.join('>'), /^outer(>twice)?(>spin)?$/);
    named++;
  }
  assert.ok(named > 10, `${named} samples in outer`);
  assert.equal(P.S[0], 0);
});

test('ordinary functions push through the probes and pop with a store only while the switch is on; the same records with a logger', async () => {
  // A probe object of the file's own, whose calls are counted.
  // (the pushes call `e` and the returns `r` through the file's own bindings of them, read
  // when the header ran: the calls are counted from before it)
  const calls = { e: 0, x: 0, k: 0 };
  const { m, Q } = await withOwnProbes(
    'inline',
    `${CHAIN}export function boom() { throw new Error("b"); }\n` +
      'export function catches() { try { boom(); } catch { return "caught"; } }\n' +
      'export async function later(x) { await null; return leaf(x); }',
    (Q) => {
      for (const k of Object.keys(calls)) {
        const f = Q[k];
        Q[k] = (...a) => (calls[k]++, f(...a));
      }
    },
  );
  assert.ok(Q && Q !== P, 'the file has its own probe object');
  Q.use(-1);
  assert.equal(m.mid(1), 4);
  assert.equal(m.catches(), 'caught');
  assert.deepEqual(calls, { e: 0, x: 0, k: 0 }, 'switch off: no probe called');
  assert.equal(Q.S[0], 0);
  Q.use(1);
  assert.equal(m.mid(1), 4);
  assert.equal(m.catches(), 'caught');
  // mid, m, arrow, leaf, catches and boom push; the exception is repaired in the catch; the
  // pops are stores of the depth, no call (leaf's and catches' returns of a value that calls
  // nothing too)
  assert.deepEqual(calls, { e: 6, x: 0, k: 1 }, 'switch on: every frame calls the probes');
  assert.equal(Q.S[0], 0);
  const id = (name) => probeFrames(Q).findIndex((f) => f[0] === name);
  // A logger with a window of one record and a depth limit past any depth: called at every
  // push, with its record written (the frame and the depth it was pushed at); pops write no
  // record and call nothing; the microtask reset a push at depth 0 queued calls it with ~0 (the
  // stack is empty then).
  const records = [];
  const W = new Int32Array(4);
  Q.log((b, c) => {
    for (let j = 1; j < c; j++) records.push(W[j]);
    if (b < 0) records.push(b);
    Q.w(W, 1, 2, 1 << 30);
  });
  Q.w(W, 1, 2, 1 << 30);
  try {
    m.mid(1);
    m.catches();
    assert.equal(await m.later(2), 3);
  } finally {
    Q.w(W, 0, 0, 0);
  }
  assert.deepEqual(records, [
    push(0, id('mid')),
    push(1, id('m')),
    push(2, id('arrow')),
    push(3, id('leaf')),
    push(0, id('catches')),
    push(1, id('boom')),
    push(0, id('later')),
    ~0, // (the reset, before later resumes)
    push(0, id('later')),
    push(1, id('leaf')),
    ~0,
  ]);
  // (later: its await pops through `x` and the resume pushes again)
  assert.deepEqual(calls, { e: 15, x: 1, k: 2 });
  assert.equal(Q.S[0], 0);
});

// A push's record: frame `id` pushed at depth d (probes.js).
const push = (d, id) => (d << 21) | id;

// A logger that takes the window's records (a window of `size` records) with the depth each call
// came with (~depth for a pop's).
function windowLogger(Q, size) {
  const calls = [];
  const W = new Int32Array(size + 1);
  Q.log((b, c) => {
    calls.push([b, [...W.subarray(1, c)]]);
    Q.w(W, 1, size + 1, 0);
  });
  Q.w(W, 1, size + 1, 0);
  return calls;
}

test('the probes call the logger only when the log window is full or at depth 0; pops write and call nothing', async () => {
  const { m, Q } = await withOwnProbes('window', CHAIN);
  const id = (name) => probeFrames(Q).findIndex((f) => f[0] === name);
  const calls = windowLogger(Q, 2);
  try {
    assert.equal(m.mid(1), 4);
    await null; // the reset queued by the push at depth 0 runs
  } finally {
    Q.w(Q.S, 0, 0, 0);
  }
  assert.deepEqual(calls, [
    [0, [push(0, id('mid'))]], // an enter at depth 0
    [2, [push(1, id('m')), push(2, id('arrow'))]], // the window is full
    [~0, [push(3, id('leaf'))]], // the reset: the stack is empty (the pops: no call, no record)
  ]);
  assert.equal(Q.S[0], 0);
});

test('while a frame is slow the probes call the logger at each push next to its gaps', async () => {
  const { m, Q } = await withOwnProbes('slow', CHAIN);
  const id = (name) => probeFrames(Q).findIndex((f) => f[0] === name);
  Q.F = new Uint8Array(probeFrames(Q).length);
  // The log sampler's part (glue/instrument/source.js): after each call, the depth limit is one
  // past the deepest slow frame on the stack (0 with none).
  const W = new Int32Array(65);
  const calls = [];
  Q.log((b, c) => {
    calls.push([b, [...W.subarray(1, c)]]);
    let i = Q.S[0] - 1;
    while (i >= 0 && Q.F[Q.S[STACK_BASE + i]] !== 1) i--;
    Q.w(W, 1, 65, i + 1);
  });
  Q.w(W, 1, 65, 0);
  try {
    assert.equal(m.mid(1), 4); // no frame slow: only the push at depth 0 calls
    Q.F[id('arrow')] = 1;
    assert.equal(m.mid(1), 4);
  } finally {
    Q.w(W, 0, 0, 0);
  }
  assert.deepEqual(calls, [
    [0, [push(0, id('mid'))]],
    [0, [push(1, id('m')), push(2, id('arrow')), push(3, id('leaf')), push(0, id('mid'))]],
    [2, [push(1, id('m')), push(2, id('arrow'))]], // arrow's first gap starts (a slow frame is pushed)
    [3, [push(3, id('leaf'))]], // a gap of arrow ends (a push at the depth limit)
    // (the pops call nothing: the next push says how far the stack fell)
  ]);
});
