// Tiny functions (glue/instrument/transform.js): a function that calls nothing, loops nowhere,
// iterates nothing and makes no function or class (a getter, `() => null`, `(n) => n + 1`)
// gets no probes and no frame by default, so its time is its caller's (as in a native profile
// whose JIT inlined it); each thing that can take time makes a function instrumented again;
// `everyFunction: true` instruments every function (the transform, the CLI, the plugins).
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { instrument } from '../../glue/instrument/transform.js';
import { esbuildPlugin } from '../../glue/instrument/plugin.js';
import { PROBES_KEY } from '../../glue/instrument/probes.js';

const framed = (src, options) => instrument(src, options).frames.map((f) => f.name);

test('tiny functions get no probes and no frame', () => {
  const src = `
    const none = () => null;
    const add = (n) => n + 1;
    function set(o, v) { o.value = v; if (v > 1) return 'big'; return \`small \${v}\`; }
    const o = { get x() { return this._x; }, set x(v) { this._x = v; }, m(a, { b } = {}) { return { a, b, c: [a] }; } };
    class C { constructor(v) { this.v = v; } get v2() { return this.v * 2; } static of() { return 1; } }
  `;
  assert.deepEqual(framed(src), []);
  assert.equal(instrument(src).code, src, 'a file of tiny functions only is left as it is');
  assert.deepEqual(framed(src, { everyFunction: true }), [
    'none',
    'add',
    'set',
    'get x',
    'set x',
    'm',
    'C',
    'get v2',
    'of',
  ]);
});

test('each thing that can take time makes a function instrumented', () => {
  const kinds = {
    call: 'function f(a) { return a.trim(); }',
    new: 'function f() { return new Map(); }',
    'super()': 'class A extends Object { constructor() { super(); } }',
    'tagged template': 'function f(t) { return t`x`; }',
    'import()': 'function f() { return import("x"); }',
    for: 'function f(a) { for (;;) break; return a; }',
    'for-in': 'function f(a) { for (const k in a) return k; }',
    'for-of': 'function f(a) { for (const v of a) return v; }',
    while: 'function f(a) { while (a) a = 0; }',
    'do-while': 'function f(a) { do a = 0; while (a); }',
    'array spread': 'function f(a) { return [...a]; }',
    'object spread': 'function f(a) { return { ...a }; }',
    'array destructuring': 'function f(a) { const [b] = a; return b; }',
    'a default parameter that calls': 'function f(a = g()) { return a; }',
    'a function made': 'function f() { return () => 1; }',
    'a class made': 'function f() { return class {}; }',
    async: 'async function f() { return 1; }',
    generator: 'function* f() { return 1; }',
  };
  for (const [kind, src] of Object.entries(kinds)) {
    assert.ok(framed(src).includes(kind === 'super()' ? 'A' : 'f'), `${kind}: ${framed(src)}`);
  }
});

test("a tiny function's time is its caller's: it never is on the probes' stack", async () => {
  // (a probe object of its own, the switch on for it alone: the realm's stays as it is)
  const key = 'perfshim.test.tiny-functions';
  const src = `const P = globalThis[Symbol.for(${JSON.stringify(key)})];
    export const depth = () => { const d = P.S[0]; return d; };
    export function outer() { return depth(); }`;
  const load = async (options) => {
    const code = instrument(src, { stack: 'always', ...options }).code;
    return import(
      `data:text/javascript,${encodeURIComponent(code.replaceAll(JSON.stringify(PROBES_KEY), JSON.stringify(key)))}`
    );
  };
  assert.equal((await load({ file: 'some.js' })).outer(), 1, 'outer only');
  assert.equal((await load({ file: 'every.js', everyFunction: true })).outer(), 2, 'outer, depth');
});

test('everyFunction reaches the transform through the plugins', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-tiny-'));
  const entry = join(dir, 'tiny.js');
  writeFileSync(entry, 'export const tiny = (n) => n + 1;\nexport const calls = (n) => tiny(n);\n');
  const framesOf = async (options) => {
    await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      outfile: join(dir, 'out.mjs'),
      logLevel: 'silent',
      plugins: [esbuildPlugin({ include: /tiny\.js$/, ...options })],
    });
    return /\.reg\(\d+,\s*\[[^\]]*\],\s*("[^"]*")/.exec(
      readFileSync(join(dir, 'out.mjs'), 'utf8'),
    )[1];
  };
  assert.equal(await framesOf({}), '",calls"');
  assert.equal(await framesOf({ everyFunction: true }), '",tiny,calls"');
});
