// The instrumentation transform preserves what every kind of function does (return values,
// `this`, `arguments`, exceptions, derived constructors, generator protocol, async ordering) and
// keeps the shadow stack right through returns, throws, awaits and yields.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { getProbes, probeFrames, STACK_BASE } from '../../glue/instrument/probes.js';

const file = new URL('./fixtures/instrument-kinds.mjs', import.meta.url);
const source = readFileSync(file, 'utf8');
const load = (code) => import(`data:text/javascript,${encodeURIComponent(code)}#${Math.random()}`);
const out = instrument(source, { file: 'instrument-kinds.mjs' });

/** The names on the shadow stack, outermost first. */
function stackNames() {
  const P = getProbes();
  const names = [];
  for (let i = 0; i < P.S[0]; i++) names.push(probeFrames(P)[P.S[i + STACK_BASE]][0]);
  return names;
}

test('instrumented code behaves exactly as the original, with the stack kept or not', async () => {
  const plain = await (await load(source)).run();
  // no profiler: the probes keep no stack (probes.js)
  assert.deepEqual(await (await load(out.code)).run(), plain);
  // (the stack read where the source reads it is empty, as in the plain code)
  assert.deepEqual(
    await (await load(out.code)).run(stackNames),
    await (await load(source)).run(stackNames),
  );
  getProbes().use(1);
  try {
    assert.deepEqual(await (await load(out.code)).run(), plain);
    assert.equal(getProbes().S[0], 0, 'every frame exited');
  } finally {
    getProbes().use(-1);
  }
});

/** A test body run with the switch on: the stack as a running profiler has it. */
const kept = (body) => async () => {
  getProbes().use(1);
  try {
    await body();
  } finally {
    getProbes().use(-1);
  }
};

test(
  'the shadow stack holds the callers at each point, awaits and yields included',
  kept(async () => {
    const log = new Map(await (await load(out.code)).run(stackNames));
    // A resumed async function runs from the microtask queue: its awaiting caller is not below it.
    assert.deepEqual(log.get('async catch'), ['SyntaxError', ['catcher']]);
    assert.deepEqual(log.get('async generator + for await').at(-1), ['consume']);
    assert.deepEqual(log.get('probe at top'), ['run']);
    assert.equal(getProbes().S[0], 0, 'every frame exited');
  }),
);

test(
  'a derived constructor runs its probes around super()',
  kept(async () => {
    const m = await load(
      instrument(
        'export class A { constructor() { this.a = 1; } }\n' +
          'export class B extends A { constructor(p) { const x = p; super(); this.stack = p(); } }',
        { file: 'b.js' },
      ).code,
    );
    const b = new m.B(stackNames);
    assert.deepEqual(b.stack, ['B']);
    assert.equal(b.a, 1);
    assert.throws(
      () => m.B.call({}),
      (e) => e.constructor === TypeError && e.name === 'TypeError',
    );
  }),
);

test(
  'an exception thrown through instrumented frames leaves the stack at the next microtask',
  kept(async () => {
    const m = await load(
      instrument(
        'export function f(n) { if (n === 0) throw new RangeError("deep"); return f(n - 1); }',
        { file: 'f.js' },
      ).code,
    );
    assert.throws(
      () => m.f(50),
      (e) => e.constructor === RangeError && e.name === 'RangeError' && e.message === 'deep',
    );
    await new Promise((r) => queueMicrotask(r));
    assert.equal(getProbes().S[0], 0);
  }),
);

test('code instrumented twice is instrumented once', () => {
  const again = instrument(out.code, { file: 'instrument-kinds.mjs' });
  assert.equal(again.code, out.code);
  assert.equal(again.map, null);
});

test('code that does not parse is an acorn SyntaxError', () => {
  assert.throws(
    () => instrument('function (', { file: 'bad.js' }),
    (e) => e.constructor === SyntaxError && e.name === 'SyntaxError',
  );
});
