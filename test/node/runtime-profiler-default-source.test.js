// The default Profiler of the runtime the suite runs in (Node, Bun, Deno: each its engine's
// sampler through node:inspector): a trace names the hot function, intervals round to the
// source's, a full buffer fires samplebufferfull once and stop() resolves with the capped trace,
// and concurrent profilers of different intervals each get their own samples. Runtime-portable:
// `make test-bun` and `make test-deno` run it too.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Profiler } from '../../glue/index.js';
import { assertTraceInvariants, samplesIn } from './profiler-helpers.mjs';

const runtime = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';

function hot(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003;
  return s;
}
function cold(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += i;
  return s;
}
/** `rounds` rounds of mostly hot(), a little cold(), with a turn of the event loop between
 *  slices (Deno starts a profile at the next task). */
async function work(rounds, until = () => false) {
  let s = 0;
  for (let r = 0; r < rounds && !until(); r++) {
    for (let k = 0; k < 20; k++) s += hot(20000) + cold(2000);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return s;
}
/** Top-of-stack frame names of a trace, counted. */
function leafCounts(t) {
  const c = new Map();
  for (const s of t.samples) {
    if (s.stackId === undefined) continue;
    const name = t.frames[t.stacks[s.stackId].frameId].name;
    c.set(name, (c.get(name) || 0) + 1);
  }
  return c;
}
/** The hot function outweighs the cold one, and (but in Bun) is the leaf of most samples:
 *  JavaScriptCore's sampler gives much of an optimized leaf's time to its caller (measured with
 *  Bun 1.4.4, through its inspector and through bun:jsc alike: 51 samples in such a `hot`, 99 in
 *  its caller; one calling Math.sin was outweighed by `cold` at times), so there only the first
 *  holds, and `hot` does no calls. */
function assertHot(t) {
  const c = leafCounts(t);
  const text = JSON.stringify([...c]);
  assert.ok((c.get('hot') || 0) > 2 * (c.get('cold') || 0), text);
  if (runtime !== 'bun') assert.equal([...c].sort((a, b) => b[1] - a[1])[0][0], 'hot', text);
}
const gapsOf = (t) => t.samples.slice(1).map((s, i) => s.timestamp - t.samples[i].timestamp);

test(`${runtime}: the trace names the hot function`, async () => {
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  await work(40);
  const t = await p.stop();
  assertTraceInvariants(t);
  assert.ok(t.samples.length >= 10, `${t.samples.length} samples`);
  assertHot(t);
  const hotFrame = t.frames.find((f) => f.name === 'hot');
  assert.match(t.resources[hotFrame.resourceId], /runtime-profiler-default-source\.test\.js$/);
});

test(`${runtime}: sampleInterval is rounded up to the source's whole microseconds, 0.1 ms at least`, async () => {
  for (const [asked, got] of [
    [0, 0.1],
    [0.0004, 0.1],
    [1.0004, 1.001],
    [16, 16],
  ]) {
    const p = new Profiler({ sampleInterval: asked, maxBufferSize: 10 });
    assert.equal(p.sampleInterval, got, `asked ${asked}`);
    await p.stop();
  }
});

test(`${runtime}: a full buffer fires samplebufferfull once, then stop() resolves with maxBufferSize samples`, async () => {
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 5 });
  let fired = 0;
  p.onsamplebufferfull = () => fired++;
  await work(2000, () => fired > 0);
  assert.equal(fired, 1);
  assert.equal(p.stopped, false, 'stopped only once stop() is called');
  await work(5);
  const t = await p.stop();
  assertTraceInvariants(t);
  assert.equal(t.samples.length, 5);
  assert.equal(fired, 1);
  await assert.rejects(p.stop(), { name: 'InvalidStateError' });
});

test(`${runtime}: concurrent profilers of different intervals each get their own samples`, async () => {
  const fine = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  await work(10);
  const coarse = new Profiler({ sampleInterval: 5, maxBufferSize: 100000 });
  await work(20);
  const c = await coarse.stop();
  await work(10);
  const f = await fine.stop();
  for (const [t, which] of [
    [f, 'fine'],
    [c, 'coarse'],
  ]) {
    assertTraceInvariants(t);
    // (the counts: Deno failed this once at a load of 17, not seen again in 8 loaded runs)
    const counts = `${which}: ${samplesIn(t, 'work').length} of ${t.samples.length} samples`;
    assert.ok(samplesIn(t, 'work').length > 0, `the workload is in the trace (${counts})`);
  }
  assert.ok(f.samples.length > c.samples.length, `${f.samples.length} > ${c.samples.length}`);
  assert.ok(f.samples[0].timestamp < c.samples[0].timestamp, 'the fine one started first');
  assert.ok(f.samples.at(-1).timestamp > c.samples.at(-1).timestamp, 'and stopped last');
  // Bun and Deno share one engine profile between the two, at the finer interval: the coarse
  // one keeps samples at least its interval apart (less half the finer one). V8 in Node gives
  // each session its own profiler, which also samples at code events.
  if (runtime !== 'node') assert.ok(Math.min(...gapsOf(c)) >= 5 - 0.5, String(gapsOf(c)));
});
