// A full buffer, then stop(), with every Node sample source (V8 through node:inspector, the
// instrumentation source's log and shared samplers): samplebufferfull fires once, sampling ends,
// and stop() resolves once with the trace capped at maxBufferSize, as Chromium does and WPT's
// js-self-profiling/max-buffer-size.https.html ("max buffer size is not exceeded") expects.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore } from '../../glue/host/loader.js';
import { createProfilerClass, getProfiler } from '../../glue/profiler/profiler.js';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { spinAndYield } from './fixtures/profiler-work.mjs';
import { assertTraceInvariants } from './profiler-helpers.mjs';
import { SAMPLERS } from './fixtures/instrument-switch.mjs';

const work = await import(
  `data:text/javascript,${encodeURIComponent(
    instrument(readFileSync(new URL('./fixtures/instrument-work.mjs', import.meta.url), 'utf8'), {
      file: 'work.js',
      url: 'https://example.test/work.js',
    }).code,
  )}`
);

const SOURCES = {
  'node-inspector': getProfiler(),
  'instrumentation, log': createProfilerClass(loadCore(), {
    source: createInstrumentSource({ mode: 'log' }),
  }),
};
// (the shared sampler needs a Worker from an ES module: not on Node 18, fixtures' SAMPLERS)
if (SAMPLERS.includes('shared'))
  SOURCES['instrumentation, shared'] = createProfilerClass(loadCore(), {
    source: createInstrumentSource({ mode: 'shared' }),
  });

for (const [name, Profiler] of Object.entries(SOURCES)) {
  test(`${name}: the buffer fills, then stop() resolves once with maxBufferSize samples`, async () => {
    const max = 5;
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: max });
    let fired = 0,
      firedAt = 0;
    p.onsamplebufferfull = () => {
      fired++;
      firedAt = performance.now();
    };
    // The samplers' timers do not keep Node alive (a page's would run anyway): this one does.
    const keep = setTimeout(() => {}, 20000);
    for (const end = performance.now() + 15000; !fired && performance.now() < end; ) {
      work.heavy(3);
      await new Promise((r) => setImmediate(r));
    }
    clearTimeout(keep);
    assert.equal(fired, 1, 'samplebufferfull fired');
    assert.equal(p.stopped, false, 'stopped only once stop() is called, as in Chromium');
    await spinAndYield(50, () => false); // sampling has ended: nothing more comes in
    const t = await p.stop();
    assert.equal(p.stopped, true);
    assertTraceInvariants(t);
    assert.equal(t.samples.length, max);
    assert.ok(t.samples.every((s) => s.timestamp <= firedAt));
    assert.equal(fired, 1, 'fired once');
    await assert.rejects(
      p.stop(),
      (e) => e instanceof DOMException && e.name === 'InvalidStateError',
    );
  });
}
