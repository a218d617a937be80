// The Chromium source: the native Profiler under `Document-Policy: js-profiling` on 127.0.0.1,
// its traces re-encoded by the core; without the policy, the instrumentation source instead.
// Chromium only: the native Profiler exists only there (every engine: profiler.test.js).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, launch, openPage, ROOT } from './harness.js';
import {
  assertTraceInvariants,
  framesOf,
  samplesIn,
  positionOf,
} from '../node/profiler-helpers.mjs';

const PAGE =
  '<!doctype html><meta charset=utf-8><title>profiler</title>' +
  '<script type=module src="/test/browser/fixtures/profiler-page.js"></script>';
const WORK = join(ROOT, 'test/browser/fixtures/profiler-work.js');

let srv, browser, page, plain;
before(async () => {
  srv = await serve({
    routes: {
      '/policy.html': { body: PAGE, headers: { 'Document-Policy': 'js-profiling' } },
      '/plain.html': { body: PAGE },
    },
  });
  browser = await launch();
  ({ page } = await openPage(browser, `${srv.url}/policy.html`));
  await page.waitForFunction(() => window.ready === true);
  ({ page: plain } = await openPage(browser, `${srv.url}/plain.html`));
  await plain.waitForFunction(() => window.ready === true);
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

const workUrl = () => `${srv.url}/test/browser/fixtures/profiler-work.js`;

test('the native source is used; sampleInterval is the one Chromium uses', async () => {
  const r = await page.evaluate(async () => {
    const { Profiler, NativeProfiler, loadError } = window.perfshim;
    const out = { loadError, differs: Profiler !== NativeProfiler };
    for (const asked of [1, 10, 15]) {
      const p = new Profiler({ sampleInterval: asked, maxBufferSize: 10 });
      const n = new NativeProfiler({ sampleInterval: asked, maxBufferSize: 10 });
      out[asked] = [p.sampleInterval, n.sampleInterval];
      await p.stop();
      await n.stop();
    }
    return out;
  });
  assert.equal(r.loadError, null);
  assert.equal(r.differs, true);
  assert.deepEqual(r[1], [10, 10]);
  assert.deepEqual(r[10], [10, 10]);
  assert.deepEqual(r[15], [r[15][1], r[15][1]]);
  assert.ok(r[15][0] >= 15);
});

test('the first look for a full buffer is timed by the native interval, not the asked one', async () => {
  // Asked for 1 ms, Chromium samples every 10 ms: 100 samples take about 1 s, so the first look
  // (and its hand-over to a new native profiler) comes after 1.25 s, not after 125 ms. The delay
  // the sampler gives the page's timer is read as it is asked for: a loaded machine fires a
  // timer late (so a wait of 500 ms could end after the look), never sooner than asked.
  const r = await page.evaluate(async () => {
    const { chromiumSource } = await import('/glue/profiler/profiler-chromium.js');
    const { createTraceCodec, loadCore } = window.perfshim;
    const codec = createTraceCodec(loadCore());
    const h = codec.create(100);
    const timer = window.setTimeout;
    const delays = [];
    window.setTimeout = (fn, ms, ...args) => {
      delays.push(ms);
      return timer(fn, ms, ...args);
    };
    let sampler;
    try {
      sampler = chromiumSource.start(codec, h, 1, 100, () => {});
    } finally {
      window.setTimeout = timer;
    }
    const chunks = sampler.chunks;
    await sampler.stop(performance.now());
    codec.free(h);
    return { interval: sampler.intervalMs, delays, chunks };
  });
  assert.deepEqual(r, { interval: 10, delays: [1250], chunks: 1 });
});

test('known functions are sampled with their URL and positions, on the page clock', async () => {
  const r = await page.evaluate(async () => {
    const { Profiler, work } = window.perfshim;
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    work.spinFor(50);
    const before = performance.now();
    work.outerWork(400);
    const after = performance.now();
    work.spinFor(50);
    const trace = await p.stop();
    return { trace, before, after };
  });
  const t = r.trace;
  assertTraceInvariants(t);
  const inOuter = samplesIn(t, 'outerWork');
  assert.ok(inOuter.length >= 5, `${inOuter.length} samples in outerWork`);
  for (const s of inOuter)
    assert.ok(
      s.timestamp >= r.before && s.timestamp <= r.after,
      `${s.timestamp} in [${r.before}, ${r.after}]`,
    );
  const spin = t.frames.find((f) => f.name === 'spinFor');
  assert.equal(t.resources[spin.resourceId], workUrl());
  // None of perfshim's own scripts (the page loads its glue/ as ES modules), as natively.
  assert.deepEqual(
    t.resources.filter((u) => u.startsWith(`${srv.url}/glue/`)),
    [],
  );
  const sp = positionOf(WORK, 'spinFor(ms) {');
  assert.deepEqual([spin.line, spin.column], [sp.line, sp.column + 'spinFor'.length]);
  const chain = framesOf(
    t,
    samplesIn(t, 'spinFor').find((s) => framesOf(t, s).some((f) => f.name === 'outerWork')),
  );
  assert.ok(
    chain.findIndex((f) => f.name === 'outerWork') < chain.findIndex((f) => f.name === 'spinFor'),
  );
});

test("re-encoding keeps every native sample's timestamp and frames", async () => {
  const { native, encoded } = await page.evaluate(async () => {
    const { NativeProfiler, createTraceCodec, loadCore, work } = window.perfshim;
    // About 30 samples on an idle machine; a starved one may take fewer, and tries again.
    let native;
    for (let tries = 0; tries < 5 && !(native?.samples.length > 10); tries++) {
      const n = new NativeProfiler({ sampleInterval: 10, maxBufferSize: 10000 });
      work.outerWork(200);
      await new Promise((r) => setTimeout(r, 30)); // samples with no stack between the two
      work.spinFor(100);
      native = await n.stop();
    }
    const codec = createTraceCodec(loadCore());
    const h = codec.create(10000);
    codec.importTrace(h, native);
    const encoded = codec.read(h);
    codec.free(h);
    return { native, encoded };
  });
  assertTraceInvariants(encoded);
  assert.ok(native.samples.length > 10);
  assert.equal(encoded.samples.length, native.samples.length);
  const spell = (t, s) =>
    framesOf(t, s).map((f) => [f.name, t.resources[f.resourceId], f.line, f.column]);
  for (let i = 0; i < native.samples.length; i++) {
    assert.equal(encoded.samples[i].timestamp, native.samples[i].timestamp);
    assert.deepEqual(
      spell(encoded, encoded.samples[i]),
      spell(native, native.samples[i]),
      `sample ${i}`,
    );
    assert.equal(encoded.samples[i].marker, native.samples[i].marker);
  }
  // Chromium's own trace is already a trie: the re-encoding is no bigger.
  assert.ok(encoded.stacks.length <= native.stacks.length);
  assert.ok(encoded.frames.length <= native.frames.length);
});

test('the buffer fills: samplebufferfull fires once, then stop() resolves once with the capped trace', async () => {
  // As Chromium's own Profiler and WPT max-buffer-size do (the draft would reject).
  const r = await page.evaluate(async () => {
    const { Profiler, work } = window.perfshim;
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 8 });
    let events = 0,
      handler = 0,
      self = false;
    p.addEventListener('samplebufferfull', () => events++);
    p.onsamplebufferfull = function () {
      handler++;
      self = this === p;
    };
    await work.spinAndYield(10000, () => events > 0);
    await new Promise((r) => setTimeout(r, 100));
    const stoppedBefore = p.stopped;
    const trace = await p.stop();
    let rejection = null;
    try {
      await p.stop();
    } catch (e) {
      rejection = [e instanceof DOMException, e.name];
    }
    return { events, handler, self, stoppedBefore, samples: trace.samples.length, rejection };
  });
  assert.deepEqual(r, {
    events: 1,
    handler: 1,
    self: true,
    stoppedBefore: false,
    samples: 8,
    rejection: [true, 'InvalidStateError'],
  });
});

test('several profilers at once, stopped in any order, samples after stop() left out', async () => {
  const r = await page.evaluate(async () => {
    const { Profiler, work } = window.perfshim;
    const a = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    work.spinFor(100);
    const b = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    const bStart = performance.now();
    work.outerWork(200);
    const pb = b.stop();
    const bStopAt = performance.now(); // after stop() was invoked: an upper bound for b's samples
    work.spinFor(150);
    const ta = await a.stop();
    const tb = await pb;
    return { ta, tb, bStart, bStopAt };
  });
  assertTraceInvariants(r.ta);
  assertTraceInvariants(r.tb);
  assert.ok(
    r.tb.samples.every((s) => s.timestamp <= r.bStopAt),
    'nothing after b.stop()',
  );
  assert.ok(
    r.ta.samples.some((s) => s.timestamp > r.bStopAt),
    'a kept sampling',
  );
  assert.ok(
    r.ta.samples.some((s) => s.timestamp < r.bStart),
    'a started first',
  );
  assert.ok(samplesIn(r.tb, 'outerWork').length > 0);
});

test('argument errors have the right types and names, as native ones do', async () => {
  const r = await page.evaluate(async () => {
    const { Profiler, NativeProfiler } = window.perfshim;
    const grab = (f) => {
      try {
        f();
        return null;
      } catch (e) {
        return [e.constructor.name, e.name, e instanceof DOMException];
      }
    };
    const cases = [
      [],
      [{}],
      [{ sampleInterval: 10 }],
      [{ maxBufferSize: 10 }],
      [5],
      [{ sampleInterval: NaN, maxBufferSize: 1 }],
      [{ sampleInterval: -1, maxBufferSize: 1 }],
    ];
    const out = cases.map((args) => [
      grab(() => new Profiler(...args)),
      grab(() => new NativeProfiler(...args)),
    ]);
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10 });
    await p.stop();
    let second = null;
    try {
      await p.stop();
    } catch (e) {
      second = [e instanceof DOMException, e.name, e.message];
    }
    return { out, second };
  });
  for (const [ours, native] of r.out) assert.deepEqual(ours, native);
  assert.deepEqual(
    r.out.map(([o]) => o[1]),
    ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'RangeError'],
  );
  assert.deepEqual(r.second.slice(0, 2), [true, 'InvalidStateError']);
  assert.match(r.second[2], /already stopped/);
});

test('without the document policy: the native one refuses, ours falls back to the instrumentation source', async () => {
  const r = await plain.evaluate(async () => {
    const { Profiler, NativeProfiler } = window.perfshim;
    const grab = (f) => {
      try {
        f();
        return null;
      } catch (e) {
        return [e instanceof DOMException, e.name];
      }
    };
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10 });
    return {
      ours: p.sampleInterval,
      trace: Object.keys(await p.stop()),
      native: grab(() => new NativeProfiler({ sampleInterval: 10, maxBufferSize: 10 })),
      range: grab(() => new Profiler({ sampleInterval: -1, maxBufferSize: 10 })),
    };
  });
  assert.equal(r.ours, 10);
  assert.deepEqual(r.trace, ['frames', 'resources', 'samples', 'stacks']);
  assert.deepEqual(r.native, [true, 'NotAllowedError']);
  assert.deepEqual(r.range, [false, 'RangeError']); // argument checks come first
});
