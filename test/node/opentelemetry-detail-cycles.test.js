// traceMeasures()/flattenDetail() over cyclic and shared details: each object is flattened once
// (met again it is `[same as <key>]`), text past the depth limit writes each object once, and
// the walk stops at the attribute cap; property reads are counted, so the work is checked to be
// linear in the detail's size (k self-references used to cost k^8 reads).
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  InMemorySpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { traceMeasures, flattenDetail } from '../../glue/node/opentelemetry.js';
import { performance } from '../../glue/index.js';

/** An object whose k properties all read back `target()`, counting the reads. */
function counted(k, target, count) {
  const o = {};
  for (let i = 0; i < k; i++)
    Object.defineProperty(o, `r${i}`, {
      enumerable: true,
      get() {
        count.reads++;
        return target(o);
      },
    });
  return o;
}

test('k self-references: each read once, each a pointer back to the detail', () => {
  const count = { reads: 0 };
  const o = counted(5, (self) => self, count);
  const attrs = flattenDetail(o);
  assert.deepEqual(attrs, {
    r0: '[same as detail]',
    r1: '[same as detail]',
    r2: '[same as detail]',
    r3: '[same as detail]',
    r4: '[same as detail]',
  });
  assert.equal(count.reads, 5);
});

test('a shared object deeper than the depth limit: linear reads, the first path flattened', () => {
  const count = { reads: 0 };
  let x = { leaf: 1 };
  for (let level = 0; level < 12; level++) {
    const below = x;
    x = counted(3, () => below, count);
  }
  const attrs = flattenDetail({ root: x });
  // Eight levels of keys; the first path is walked, its siblings point back to it.
  const deepest = `root${'.r0'.repeat(7)}`;
  assert.equal(attrs['root.r1'], '[same as root.r0]');
  assert.equal(typeof attrs[deepest], 'string');
  assert.match(attrs[deepest], /"\[repeated\]"/); // the text beyond the limit: each object once
  assert.ok(Object.keys(attrs).length <= 128);
  assert.ok(count.reads <= 3 * 12, `${count.reads} reads for 12 levels of 3 shared keys`);
});

test('the walk stops at the attribute cap', () => {
  const count = { reads: 0 };
  const wide = counted(1000, () => 1, count);
  assert.equal(Object.keys(flattenDetail(wide)).length, 128);
  assert.equal(count.reads, 128);
});

test('measure() with a cyclic detail makes its span, with the cycle as text', () => {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const stop = traceMeasures({ tracer: provider.getTracer('test') });
  try {
    const detail = { id: 7 };
    for (let i = 0; i < 6; i++) detail[`self${i}`] = detail;
    performance.measure('cyclic', { start: 0, duration: 1, detail });
    const span = memory.getFinishedSpans().find((s) => s.name === 'cyclic');
    assert.deepEqual(span.attributes, {
      id: 7,
      ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`self${i}`, '[same as detail]'])),
    });
  } finally {
    stop();
    performance.clearMeasures('cyclic');
  }
});
