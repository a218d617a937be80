// A sparse array handed to an importer (toCpuProfile's samples, fromCpuProfile's nodes, ...) is
// refused at its first hole with the TypeError naming it, before anything is reserved in the
// core: the wasm memory does not grow (it never shrinks, so growth would be for good).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createExporters } from '../../glue/export/export.js';
import { exportersUnderTest } from './fixtures/export-traces.mjs';

const core = exportersUnderTest.core();
const ex = createExporters(core);
const EMPTY = { resources: [], frames: [], stacks: [], samples: [] };
const NODES = [
  { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2] },
  { id: 2, callFrame: { functionName: 'f', url: 'file:///a.js' } },
];
const holes = () => new Array(1e7);

const CASES = [
  [
    'toCpuProfile samples',
    () => ex.toCpuProfile({ ...EMPTY, samples: holes() }),
    /trace\.samples\[0\] must be an object/,
  ],
  [
    'toSpeedscope frames',
    () => ex.toSpeedscope({ ...EMPTY, frames: holes() }),
    /trace\.frames\[0\] must be an object/,
  ],
  [
    'toFirefoxProfile stacks',
    () => ex.toFirefoxProfile({ ...EMPTY, stacks: holes() }),
    /trace\.stacks\[0\] must be an object/,
  ],
  [
    'toTraceEvents resources',
    () => ex.toTraceEvents({ ...EMPTY, resources: holes() }),
    /trace\.resources\[0\] must be a string/,
  ],
  [
    'fromCpuProfile nodes',
    () => ex.fromCpuProfile({ nodes: holes(), startTime: 0 }),
    /profile\.nodes\[0\] must be an object/,
  ],
  [
    'fromCpuProfile samples and timeDeltas',
    () => ex.fromCpuProfile({ nodes: NODES, startTime: 0, samples: holes(), timeDeltas: holes() }),
    /profile\.samples\[0\] names node undefined/,
  ],
  [
    'fromCpuProfile timeDeltas',
    () =>
      ex.fromCpuProfile({
        nodes: NODES,
        startTime: 0,
        samples: new Array(1e7).fill(2),
        timeDeltas: holes(),
      }),
    /profile\.timeDeltas\[0\] must be a finite number/,
  ],
  [
    'fromCpuProfile children',
    () =>
      ex.fromCpuProfile({
        nodes: [{ id: 1, callFrame: { functionName: '(root)' }, children: holes() }],
        startTime: 0,
      }),
    /profile\.nodes\[0\]\.children\[0\] names node undefined/,
  ],
];

for (const [what, call, message] of CASES) {
  test(`${what}: a sparse array of 1e7 is a TypeError and the wasm memory stays as it was`, () => {
    ex.toCpuProfile(EMPTY); // the exchange buffer exists
    const before = core.memory.buffer.byteLength;
    assert.throws(
      call,
      (e) => e instanceof TypeError && e.name === 'TypeError' && message.test(e.message),
    );
    assert.equal(core.memory.buffer.byteLength, before);
  });
}
