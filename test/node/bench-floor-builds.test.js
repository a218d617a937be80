// The bench's floor builds (bench/floor-builds.mjs) cut the transform's current text: "stack
// only" pushes and pops inline on every call, "no probes" loses the push and the pops, both
// still compute what the source does, and text the patterns no longer match stops the bench.
import test from 'node:test';
import assert from 'node:assert/strict';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { floorBuilds } from '../../bench/floor-builds.mjs';

const SOURCE = `
export function early(x) { if (x > 1) return 'big'; return 'small'; }
export function none(o) { o.n = 1; }
export const expr = (x) => x * 2;
export const block = (x) => { const y = x + 1; return y; };
export class C { constructor(v) { this.v = v; } get twice() { return this.v * 2; } m() { return this.v; } }
export function thrower() { throw new Error('boom'); }
export async function later(x) { return (await x) + 1; }
export function* gen() { yield 1; yield 2; }
`;
const ORDINARY = 8; // early, none, expr, block, constructor, get twice, m, thrower

const load = (code) => import(`data:text/javascript,${encodeURIComponent(code)}#${Math.random()}`);
const count = (s, part) => s.split(part).length - 1;

async function behaviour(m) {
  const o = {};
  m.none(o);
  const c = new m.C(4);
  let thrown = null;
  try {
    m.thrower();
  } catch (e) {
    thrown = e.message;
  }
  return [
    m.early(2),
    m.early(0),
    o.n,
    m.expr(3),
    m.block(3),
    c.twice,
    c.m(),
    thrown,
    await m.later(Promise.resolve(1)),
    [...m.gen()],
  ];
}

test('the floor builds keep the stack on every call, or no probes, and keep behaviour', async () => {
  const { code } = instrument(SOURCE, { file: 'floor.js' });
  const { stack, bare } = floorBuilds(code);
  // a probe call at each push, and a store of the depth at each block body's end (not `expr`'s)
  assert.equal(count(code, '.o&&__pse('), ORDINARY);
  assert.equal(count(code, ';__pst&&(__pss[0]=__pst-1);'), ORDINARY - 1);
  assert.equal(count(stack, '.o&&'), 0, 'stack only: no switch test left');
  assert.equal(count(stack, '__pss[0]=__pst;'), ORDINARY, 'stack only: every push inline');
  assert.equal(count(stack, '__pss[0]=__pst-1;'), ORDINARY - 1, 'stack only: every pop inline');
  assert.equal(count(bare, '__pss['), 0, 'no probes: no access to the stack');
  assert.equal(count(bare, '__pst&&('), 0, 'no probes: no exit');
  // async functions and generators keep their probe calls in both
  assert.ok(count(code, '__pse(') > ORDINARY);
  assert.equal(count(bare, '__pse('), count(code, '__pse(') - ORDINARY);
  const expected = await behaviour(await load(SOURCE));
  for (const build of [code, stack, bare])
    assert.deepEqual(await behaviour(await load(build)), expected);
});

test('text the floor patterns no longer match stops the bench instead of timing a half-cut build', () => {
  const { code } = instrument(SOURCE, { file: 'floor.js' });
  // one function's push written differently, as a change to the transform would
  const changed = code.replace('.o&&__pse(', '.o&&__pse2(');
  assert.throws(() => floorBuilds(changed), /the transform's text changed/);
  assert.throws(() => floorBuilds('function f() {}'), /the transform's text changed/);
});
