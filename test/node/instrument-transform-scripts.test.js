// Classic scripts and edge syntax through the transform: two instrumented scripts share one
// realm's probes with distinct frame ids, sloppy code and directives keep their meaning, a
// labeled `for await` keeps its label, `var f` + `function f` in one body stays valid, and a
// module's function called through an import cycle before its module body ran still works.
import test from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { PROBES_KEY, probeFrames } from '../../glue/instrument/probes.js';

const P = (ctx) => vm.runInContext(`globalThis[Symbol.for(${JSON.stringify(PROBES_KEY)})]`, ctx);

test('two classic scripts in one realm: one probe object, their own frames', () => {
  const ctx = vm.createContext({});
  vm.runInContext(instrument('function a() { return typeof this; }', { file: 'a.js' }).code, ctx);
  vm.runInContext(instrument('function b() { return a(); }', { file: 'b.js' }).code, ctx);
  assert.equal(vm.runInContext('b()', ctx), 'object'); // sloppy: `this` is the global
  assert.deepEqual(
    Array.from(probeFrames(P(ctx)), (f) => `${f[0]}@${f[1]}`),
    ['a@a.js', 'b@b.js'],
  );
  assert.equal(P(ctx).S[0], 0);
});

test('directives stay first: strict functions stay strict', () => {
  const ctx = vm.createContext({});
  const code = instrument(
    '"use strict";\nfunction f() { return this; }\nfunction g() { "use strict"; return this; }',
    { file: 's.js', sourceType: 'script' },
  ).code;
  assert.match(code, /^"use strict";/);
  vm.runInContext(code, ctx);
  assert.equal(vm.runInContext('f()', ctx), undefined);
  assert.equal(vm.runInContext('g()', ctx), undefined);
});

test('sloppy-only syntax (with, octal) parses as a script', () => {
  const ctx = vm.createContext({ o: { x: 8 } });
  vm.runInContext(
    instrument('function w() { with (o) { return x + 010; } }', { file: 'w.js' }).code,
    ctx,
  );
  assert.equal(vm.runInContext('w()', ctx), 16);
});

test('var and function of one name in a body, and a labeled for await', async () => {
  const src =
    'export function clash() { var h = 1; function h() {} return typeof h; }\n' +
    'export async function labeled(it) { const out = []; outer: for await (const x of it) { for (const y of [1, 2]) { if (y === 2) continue outer; out.push(x); } } return out; }';
  const m = await import(
    `data:text/javascript,${encodeURIComponent(instrument(src, { file: 'c.js' }).code)}`
  );
  assert.equal(m.clash(), 'number');
  async function* gen() {
    yield 'a';
    yield 'b';
  }
  assert.deepEqual(await m.labeled(gen()), ['a', 'b']);
});

test('a module that imports nothing is in no cycle: its declarations test the switch alone', () => {
  const enter = (code) => /let __pst=([^;]*);/.exec(instrument(code, { file: 'm.mjs' }).code)[1];
  const fn = 'export function f(a) { return a.trim(); }\n';
  assert.match(enter(fn), /^__pso\.o&&/, 'no header call: nothing can call f before the body');
  assert.match(enter(`import { x } from './x.mjs';\n${fn}`), /^\(__pso\|\|__psh_\w+\(\)\)\.o&&/);
  assert.match(enter(`export { x } from './x.mjs';\n${fn}`), /^\(__pso\|\|__psh_\w+\(\)\)\.o&&/);
});

test("an import cycle runs a module's functions before its body: they register and run", async () => {
  // b.mjs is evaluated first (a.mjs imports it) and calls a.mjs's hoisted functions, one plain and
  // one async, before a.mjs's header has run.
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-cycle-'));
  try {
    const files = {
      'a.mjs':
        "import { b } from './b.mjs';\n" +
        "export function a() { return 'a'; }\n" +
        "export async function aa() { return 'aa'; }\n" +
        "export function thrower() { throw new RangeError('empty input'); }\n" +
        'export function makes() { const g = function* () { yield 1; }; const f = async () => 2; return [...g(), f()]; }\n' +
        'export const fromB = b();',
      'b.mjs':
        "import { a, aa, thrower, makes } from './a.mjs';\n" +
        "export function b() { return 'b'; }\n" +
        'let caught;\n' +
        "try { thrower(); } catch (e) { caught = e.name + ': ' + e.message; }\n" +
        'export const fromA = [a(), aa(), caught, makes()];',
    };
    for (const [name, code] of Object.entries(files))
      writeFileSync(join(dir, name), instrument(code, { file: name }).code);
    const b = await import(pathToFileURL(join(dir, 'b.mjs')).href);
    const a = await import(pathToFileURL(join(dir, 'a.mjs')).href);
    assert.equal(b.fromA[0], 'a');
    assert.equal(await b.fromA[1], 'aa');
    // the user's own exception, not a TypeError of the probes (stop 22's first switch did that)
    assert.equal(b.fromA[2], 'RangeError: empty input');
    // a generator and an async function created by such a call run (they call the probes)
    assert.equal(b.fromA[3][0], 1);
    assert.equal(await b.fromA[3][1], 2);
    assert.equal(a.fromB, 'b');
    const Q = globalThis[Symbol.for(PROBES_KEY)];
    const names = probeFrames(Q)
      .filter((f) => /^(a|aa|b)$/.test(f[0]))
      .map((f) => `${f[0]}@${f[1]}`);
    assert.deepEqual(names.sort(), ['a@a.mjs', 'aa@a.mjs', 'b@b.mjs'], 'each file registered once');
    assert.equal(Q.S[0], 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the transform's own names are the __ps prefix's: a user's __on, or a parameter so named, is left alone", async () => {
  const src =
    'export function __on() { return "mine"; }\n' +
    'export function depth(__on, P) { return P.S[0]; }\n';
  const m = await import(
    `data:text/javascript,${encodeURIComponent(instrument(src, { file: 'names.js' }).code)}`
  );
  assert.equal(m.__on(), 'mine');
  // a truthy argument named like the switch of stop 22's first version pushed a frame
  assert.equal(m.depth(true, globalThis[Symbol.for(PROBES_KEY)]), 0);
});

test('a script factory run again and again leaves no scope behind in the probes', async () => {
  // (each run registers its switch setter; the probes hold it weakly: stop 22)
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const code = instrument(
    'var big = new Float64Array(1 << 20);\nexports.get = function get() { return big[0]; };',
    { file: 'factory.js', sourceType: 'script' },
  ).code;
  const factory = new Function('exports', code);
  for (let i = 0; i < 40; i++) factory({}); // 8 MB a run
  for (let k = 0; k < 5; k++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const mb = process.memoryUsage().arrayBuffers / 2 ** 20;
  assert.ok(mb < 100, `${mb.toFixed(0)} MB of array buffers kept after 40 runs of 8 MB`);
});
