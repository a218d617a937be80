// Valid input that the transform once broke (issue 23, each case found with Test262 or from
// outside): instrumented, every case loads and behaves exactly as the original, with no
// profiler and with the probes' switch on; names the transform adds collide with nothing; a
// classic script adds nothing enumerable to the global object; a deep nesting is a RangeError.
import test from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { inspect } from 'node:util';
import { Parser } from 'acorn';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { PROBES_KEY, STACK_BASE } from '../../glue/instrument/probes.js';

const KEY = JSON.stringify(PROBES_KEY);
const show = (v) => inspect(v, { depth: 4 });

/** Runs a classic script in a fresh realm (switch on: `on`) and returns the realm's `r`. */
async function runScript(code, on) {
  const ctx = vm.createContext({ queueMicrotask });
  if (on) vm.runInContext(`${probesOf(ctx)}.use(1)`, ctx);
  vm.runInContext(code, ctx);
  let r = vm.runInContext('globalThis.r', ctx);
  if (r && typeof r.then === 'function')
    r = await r.then(
      (v) => v,
      (e) => `rejected ${e.name}`,
    );
  return { r: show(r), ctx };
}
const probesOf = () =>
  `(globalThis[Symbol.for(${KEY})]||(globalThis[Symbol.for(${KEY})]=(${instrumentedProbes()})))`;
// the probes a file inlines, taken from an instrumented file's header
const instrumentedProbes = () => {
  const out = instrument('function f() {}', { sourceType: 'script' }).code;
  const from = out.indexOf('=(function createProbes') + 1;
  return out.slice(from, out.indexOf('})())', from) + 4);
};

/** The script's `r`, plain and instrumented (switch off and on): all the same. */
async function same(src, expected) {
  const plain = (await runScript(src, false)).r;
  if (expected !== undefined) assert.equal(plain, show(expected), 'the test expects what V8 does');
  const code = instrument(src, { file: 'case.js', sourceType: 'script' }).code;
  for (const on of [false, true]) assert.equal((await runScript(code, on)).r, plain, code);
}

test('`for await` with a body that is not a block', async () => {
  await same(
    'async function f() { const out = []; for await (const x of [1, 2]) out.push(x); ' +
      'for await (const y of [3]) ; return out; }\nglobalThis.r = f();',
    [1, 2],
  );
});

test('`yield` and `await` directly followed by a punctuator', async () => {
  await same(
    'function* g() { yield/re/.source; yield[1]; yield"s"; yield(2); }\n' +
      'async function a() { return await-1; }\n' +
      'globalThis.r = a().then((v) => [...g(), v]);',
    ['re', [1], 's', 2, -1],
  );
});

test('a directive prologue ended by ASI', async () => {
  await same(
    'function f() { "use strict"\n  let x = this; return x === undefined; }\nglobalThis.r = f();',
    true,
  );
});

test("a comment containing `=>` between an arrow's parameters and its `=>`", async () => {
  await same('const f = (a /* => */) /* => */ => a + 1;\nglobalThis.r = f(1);', 2);
});

test('a `break` or `continue` in a `finally` overrides a `return`', async () => {
  await same(
    'function b() { for (;;) { try { return 1; } finally { break; } } }\n' +
      'function c() { for (let i = 0; i < 2; i++) { try { return i; } finally { continue; } } }\n' +
      'globalThis.r = [b(), c()];',
    [undefined, undefined],
  );
});

test('body-level declarations keep their scope (no body moved into a block)', async () => {
  await same(
    // a function declaration named like a parameter updates the mapped `arguments`
    'function param(a) { function a() {} return typeof arguments[0]; }\n' +
      // a sloppy direct eval declaring a var named like a body-level function
      'function ev() { eval("var g = 1"); return g; function g() {} }\n' +
      // an Annex B block function named like a body-level function
      'function annexB() { { function h() { return 1; } } return h(); function h() { return 2; } }\n' +
      // a function declared twice (var + function) sees the body's let
      'function twice() { var k; let x = 1; function k() { return x; } return k(); }\n' +
      'globalThis.r = [param(0), ev(), annexB(), twice()];',
    ['function', 1, 1, 1],
  );
});

test('inside `with (o)` no name the transform adds is looked up through `o`', async () => {
  await same(
    'const seen = [];\n' +
      'const p = new Proxy({ x: 1, _' +
      '_psv: "mine" }, { has(t, k) { if (typeof k === "string") seen.push(k); return k in t; } });\n' +
      'function w(o) { with (o) { return [x, (() => x)(), (function () { return x; })()]; } }\n' +
      'globalThis.r = [w(p), seen];',
    [
      [1, 1, 1],
      ['x', 'x', 'x'],
    ],
  );
});

test('sloppy call expressions as assignment targets parse and throw when they run', async () => {
  await same(
    'function g() { return {}; }\n' +
      'const tries = [() => { g() = 1; }, () => { g()++; }, () => { for (g() in { a: 1 }); }];\n' +
      'globalThis.r = tries.map((t) => { try { t(); return "ran"; } catch (e) { return e.name; } });',
    ['ReferenceError', 'ReferenceError', 'ReferenceError'],
  );
});

test('names the transform adds collide with nothing in the input', async () => {
  const collide = [
    'function a(__pst) { return __pst + 1; }',
    'function b() { var __psv = 2; return __psv; }',
    'function c() { __psx: for (;;) { break __psx; } return 3; }',
    'function d() { let __ps = 4; return __ps; }',
    'function e() { const __pso = 5; return __pso; }',
    'function f() { eval("var __pst = 6"); return __pst; }',
    'function g() { return [1, 2].map(function __psh() { return 7; })[0]; }',
  ];
  await same(
    `${collide.join('\n')}\nglobalThis.r = [a(0), b(), c(), d(), e(), f(), g()];`,
    [1, 2, 3, 4, 5, 6, 7],
  );
  for (const src of collide) {
    const mod = instrument(`${src}\nexport default 1;`, { file: 'm.js' }).code;
    assert.ok(mod.length > src.length, 'instrumented as a module too');
  }
});

test('no label is added (Rollup 3 drops an outer label a nested function reuses)', () => {
  const out = instrument('function a() { function b() { return 1; } return b(); }', {
    file: 'l.js',
  }).code;
  const labels = [];
  const visit = (node) => {
    if (node.type === 'LabeledStatement') labels.push(node.label.name);
    for (const v of Object.values(node)) {
      for (const c of Array.isArray(v) ? v : [v]) if (c && typeof c.type === 'string') visit(c);
    }
  };
  visit(Parser.parse(out, { ecmaVersion: 'latest' }));
  assert.deepEqual(labels, []);
});

test('a classic script adds nothing enumerable to the global object, and keeps its own probes', async () => {
  const src = 'function f() { return 1; }\nvar mine = f();';
  const plain = await runScript(src, false);
  const code = instrument(src, { file: 'c.js', sourceType: 'script' }).code;
  const { ctx } = await runScript(code, true);
  const keys = (c) => [...vm.runInContext('Object.keys(globalThis)', c)];
  assert.deepEqual(keys(ctx), keys(plain.ctx));
  const forIn = (c) => [
    ...vm.runInContext('var seen = []; for (var k in globalThis) seen.push(k); seen', c),
  ];
  assert.deepEqual(forIn(ctx), forIn(plain.ctx));
  // Another perfshim version's classic script on the page declares its own bindings.
  vm.runInContext('var __ps = {}, __pss = new Int32Array(600), __pso = { o: 1 };', ctx);
  const depth = vm.runInContext(
    `var P = globalThis[Symbol.for(${KEY})]; var d = []; ` +
      'var g = function () { d.push(P.S[0]); }; P.n',
    ctx,
  );
  assert.equal(depth, 1);
  const S = vm.runInContext(
    `globalThis[Symbol.for(${KEY})].S[0] = 0; f(); globalThis[Symbol.for(${KEY})].S`,
    ctx,
  );
  assert.equal(S[STACK_BASE], 0, "f's frame (id 0) went on this version's stack");
});

test('an async generator returning awaited values leaves the stack balanced', async () => {
  const src =
    'async function* ag() { yield 1; return await Promise.resolve(2); }\n' +
    'async function* ag2() { return Promise.resolve(3); }\n' +
    'function deep(n) { return n ? deep(n - 1) : [ag(), ag2()]; }\n' +
    'async function run() { const [a, b] = deep(3); const out = [];\n' +
    '  for await (const v of a) out.push(v); out.push((await a.next()).value, (await b.next()).value);\n' +
    '  await null; return out; }\n' +
    'globalThis.r = run();';
  await same(src, [1, undefined, 3]);
  const { ctx } = await runScript(
    instrument(src, { file: 'ag.js', sourceType: 'script' }).code,
    true,
  );
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(vm.runInContext(`globalThis[Symbol.for(${KEY})].S[0]`, ctx), 0);
});

test('a file that merely contains the marker text is instrumented', () => {
  const out = instrument('const s = "/*perfshim:instrumented*/";\nfunction f() { return s; }', {
    file: 'm.js',
  });
  assert.equal(out.frames.length, 1);
  assert.deepEqual(instrument(out.code, { file: 'm.js' }).frames, [], 'instrumented once');
});

test('functions nested deeper than the transform handles are a RangeError, not an abort', () => {
  const nest = (n) => {
    let s = 'x';
    for (let i = 0; i < n; i++) s = `(function () { return ${s}; })()`;
    return `var x = 1; var r = ${s};`;
  };
  const isRange = (e) => e.constructor === RangeError && e.name === 'RangeError';
  // past MAX_DEPTH (200): refused before the walk (by the brackets' depth, 2 a level)
  assert.throws(
    () => instrument(nest(201), { file: 'deep.js' }),
    (e) => isRange(e) && /nested/.test(e.message),
  );
  // deep enough for acorn's recursion to exhaust the stack (where V8 aborted now and then): refused
  // before the parse, the same RangeError
  for (const deep of [nest(5000), `var a = ${'['.repeat(20000)}${']'.repeat(20000)};`])
    assert.throws(
      () => instrument(deep, { file: 'deeper.js' }),
      (e) => isRange(e) && /nested more than 400 brackets deep/.test(e.message),
    );
  // a chain acorn parses by recursion with no brackets, where its guard catches the overflow
  assert.throws(
    () => instrument(`var u = ${'!'.repeat(50000)}x;`, { file: 'unary.js' }),
    (e) => isRange(e) && /nested too deep to parse/.test(e.message),
  );
  // a bracket in a string, a comment, a regular expression or a template is not nesting
  const text = `var s = "${'('.repeat(1000)}", re = /${'\\('.repeat(1000)}/, t = \`${'{'.repeat(1000)}\`; // ${'['.repeat(1000)}`;
  assert.equal(
    instrument(`${text}\nfunction f() { return g(s, re, t); }`, { file: 'ok.js' }).frames.length,
    1,
  );
});

test("an async generator's bare `return;` takes no extra tick (Test262 return-undefined-implicit-and-explicit)", async () => {
  await same(
    'async function* g1() {}\nasync function* g2() { return; }\n' +
      'async function* g3() { return undefined; }\nasync function* g4() { if (globalThis.no) return\n; return void 0; }\n' +
      'const actual = [];\n' +
      'globalThis.r = Promise.resolve(0).then(() => actual.push("tick 1")).then(() => actual.push("tick 2")).then(() => actual);\n' +
      'for (const [g, n] of [[g1, "g1"], [g2, "g2"], [g3, "g3"], [g4, "g4"]]) g().next().then(() => actual.push(n + " ret"));',
    ['tick 1', 'g1 ret', 'g2 ret', 'tick 2', 'g3 ret', 'g4 ret'],
  );
});
