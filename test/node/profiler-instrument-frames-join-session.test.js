// Frames an instrumented file registers while a profiler of the instrumentation source runs
// join that session: its functions are sampled with their names and the file's URL (the page
// case, a profiler started before the app's code loaded, is in test/browser/profiler-before-app-code).
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../glue/host/loader.js';
import { createProfilerClass } from '../../glue/profiler/profiler.js';
import { instrument } from './fixtures/instrument-every-function.mjs';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { SWITCH_SRC, stacks, SAMPLERS } from './fixtures/instrument-switch.mjs';

const load = (src, url) =>
  import(
    `data:text/javascript,${encodeURIComponent(instrument(src, { file: 'f.js', url }).code)}#${Math.random()}`
  );
// (in Node the source needs some instrumented code before it starts: a window or worker does not)
await load(SWITCH_SRC, 'https://example.test/first.js');

for (const mode of SAMPLERS) {
  const Profiler = createProfilerClass(loadCore(), { source: createInstrumentSource({ mode }) });

  test(`${mode}: a file loaded after the profiler started is sampled in its session`, async () => {
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 1e6 });
    const url = `https://example.test/later-${mode}.js`;
    const later = await load(SWITCH_SRC, url);
    later.outer(() => later.spin(60));
    const t = await p.stop();
    assert.ok(
      stacks(t).some((s) => s === 'outer>inner>spin'),
      stacks(t).join(', '),
    );
    const inner = t.frames.find((f) => f.name === 'inner');
    assert.equal(t.resources[inner.resourceId], url);
  });
}
