// Names cross the C/JS boundary through one WTF-8 codec: lone surrogates (legal in JS strings)
// come back exactly from a Profiler trace, the exporters and the .cpuprofile importer.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { createExporters } from '../../glue/export/export.js';
import { createCore } from '../../glue/host/loader.js';
import { createTraceCodec } from '../../glue/profiler/profiler-trace.js';

const wasmPath = process.env.PERFSHIM_WASM;
const core = wasmPath ? createCore(new Uint8Array(readFileSync(wasmPath))) : createCore();
const codec = createTraceCodec(core);
const { toCpuProfile, fromCpuProfile, toSpeedscope, toFirefoxProfile, toTraceEvents } =
  createExporters(core);

const NAMES = ['a\ud800b', '\udc00', 'x\udbff', '\ud83d\ude00 ok', '\ufeffbom', 'é€', ''];
const trace = {
  resources: ['https://a.test/\ud800.js'],
  frames: NAMES.map((name, i) => ({ name, resourceId: 0, line: i + 1 })),
  stacks: NAMES.map((_, i) => (i ? { frameId: i, parentId: i - 1 } : { frameId: 0 })),
  samples: NAMES.map((_, i) => ({ timestamp: i + 1, stackId: i })),
};

test('a Profiler trace gives back every frame name and resource exactly', () => {
  const h = codec.create(100);
  try {
    codec.importTrace(h, trace);
    const t = codec.read(h);
    assert.deepEqual(
      t.frames.map((f) => f.name),
      NAMES,
    );
    assert.deepEqual(t.resources, trace.resources);
  } finally {
    codec.free(h);
  }
});

test('toCpuProfile and fromCpuProfile keep lone surrogates', () => {
  const p = toCpuProfile(trace);
  const names = p.nodes.map((n) => n.callFrame.functionName);
  for (const name of NAMES) assert.ok(names.includes(name), JSON.stringify(name));
  const back = fromCpuProfile(p);
  assert.deepEqual(back.frames.map((f) => f.name).sort(), [...NAMES].sort());
  assert.deepEqual(back.resources, trace.resources);
  const text = fromCpuProfile(JSON.stringify(p));
  assert.deepEqual(text.frames.map((f) => f.name).sort(), [...NAMES].sort());
});

test('the other exporters keep lone surrogates', () => {
  const ss = toSpeedscope(trace, { name: 'p\ud800' });
  assert.equal(ss.name, 'p\ud800');
  // speedscope names the anonymous frame (line 7) after its file, as its own import does.
  const ssNames = NAMES.map((n) => n || '(anonymous \ud800.js:7)');
  assert.deepEqual(ss.shared.frames.map((f) => f.name).sort(), ssNames.sort());
  const ff = toFirefoxProfile(trace, { name: 't\udc00' });
  assert.ok(JSON.stringify(ff).includes('"t\\udc00"'));
  assert.equal(ff.threads[0].name, 't\udc00');
  for (const name of NAMES) assert.ok(ff.shared.stringArray.includes(name), JSON.stringify(name));
  const te = toTraceEvents(trace);
  assert.ok(JSON.stringify(te).includes('a\\ud800b'));
});
