// Shared checks for the profiler suites (imported, not a suite itself).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** Every invariant a ProfilerTrace must satisfy; throws an AssertionError naming the first
 *  violation. */
export function assertTraceInvariants(t) {
  assert.deepEqual(Object.keys(t).sort(), ['frames', 'resources', 'samples', 'stacks']);
  for (const k of ['frames', 'resources', 'samples', 'stacks']) assert.ok(Array.isArray(t[k]), k);
  const isId = (v, n) => Number.isInteger(v) && v >= 0 && v < n;
  const isPos = (v) => Number.isInteger(v) && v >= 1;
  assert.equal(new Set(t.resources).size, t.resources.length, 'resources unique');
  for (const r of t.resources) assert.equal(typeof r, 'string');
  const frameKeys = new Set();
  t.frames.forEach((f, i) => {
    for (const k of Object.keys(f))
      assert.ok(['name', 'resourceId', 'line', 'column'].includes(k), `frame ${i} key ${k}`);
    assert.equal(typeof f.name, 'string', `frame ${i} name`);
    if ('resourceId' in f)
      assert.ok(isId(f.resourceId, t.resources.length), `frame ${i} resourceId`);
    if ('line' in f) assert.ok(isPos(f.line), `frame ${i} line`);
    if ('column' in f) assert.ok(isPos(f.column), `frame ${i} column`);
    frameKeys.add(JSON.stringify([f.name, f.resourceId, f.line, f.column]));
  });
  assert.equal(frameKeys.size, t.frames.length, 'frames unique');
  const stackKeys = new Set();
  t.stacks.forEach((s, i) => {
    for (const k of Object.keys(s))
      assert.ok(['frameId', 'parentId'].includes(k), `stack ${i} key ${k}`);
    assert.ok(isId(s.frameId, t.frames.length), `stack ${i} frameId`);
    if ('parentId' in s) assert.ok(isId(s.parentId, i), `stack ${i} parent must come before it`);
    stackKeys.add(`${s.parentId}/${s.frameId}`);
  });
  assert.equal(stackKeys.size, t.stacks.length, 'stacks unique');
  let last = -Infinity;
  t.samples.forEach((s, i) => {
    for (const k of Object.keys(s))
      assert.ok(['timestamp', 'stackId', 'marker'].includes(k), `sample ${i} key ${k}`);
    assert.ok(Number.isFinite(s.timestamp), `sample ${i} timestamp`);
    assert.ok(s.timestamp >= last, `sample ${i} in time order`);
    last = s.timestamp;
    if ('stackId' in s) assert.ok(isId(s.stackId, t.stacks.length), `sample ${i} stackId`);
    if ('marker' in s)
      assert.ok(
        ['script', 'gc', 'style', 'layout', 'paint', 'other'].includes(s.marker),
        `sample ${i} marker`,
      );
  });
  assert.ok(!JSON.stringify(t).includes('null'), 'no nulls: absent members are absent');
}

/** The frames of a sample, outermost first. */
export function framesOf(t, sample) {
  const out = [];
  for (let id = sample.stackId; id !== undefined; id = t.stacks[id].parentId)
    out.unshift(t.frames[t.stacks[id].frameId]);
  return out;
}

/** Samples whose stack contains a frame named `name`. */
export function samplesIn(t, name) {
  return t.samples.filter((s) => framesOf(t, s).some((f) => f.name === name));
}

/** 1-based line and column of the first occurrence of `needle` in a file. */
export function positionOf(file, needle) {
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `${needle} in ${file}`);
  const before = text.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}
