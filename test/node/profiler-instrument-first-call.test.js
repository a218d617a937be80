// The log sampler's first session in a realm: a long call among the first records a profiler
// logs (before any stamp separated them) is sampled in that call, not spread over the calls
// around it and charged to the frame that ran before (WebKit: 110 ms reported against 56 ms).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore } from '../../glue/host/loader.js';
import { createProfilerClass } from '../../glue/profiler/profiler.js';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { createInstrumentSource } from '../../glue/instrument/source.js';

const work = await import(
  `data:text/javascript,${encodeURIComponent(
    instrument(readFileSync(new URL('./fixtures/instrument-work.mjs', import.meta.url), 'utf8'), {
      file: 'work.js',
      url: 'https://example.test/work.js',
    }).code,
  )}`
);

test('log sampler, first session: a 60 ms call after 20 short ones is sampled in it', async () => {
  // A core of its own: the sampler has learned nothing yet.
  const Profiler = createProfilerClass(loadCore(), {
    source: createInstrumentSource({ mode: 'log' }),
  });
  work.stretches.length = 0;
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  work.leafAfterCalls(1, 20, 60);
  const t = await p.stop();
  const [[a, b]] = work.stretches;
  const inside = t.samples.filter((s) => s.timestamp > a + 0.1 && s.timestamp < b - 0.1);
  const tops = inside.map((s) =>
    s.stackId === undefined ? '(idle)' : t.frames[t.stacks[s.stackId].frameId].name,
  );
  assert.ok(inside.length >= 20, `ticks inside the call: ${inside.length}`);
  const right = tops.filter((n) => n === 'longLeaf').length;
  assert.ok(right >= 0.9 * inside.length, `on top: ${tops.join(' ')}`);
});
