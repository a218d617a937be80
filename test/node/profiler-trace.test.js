// The trace trie seen from JS (glue/profiler/profiler-trace.js over src/trace.c): re-encoding, output
// shape (absent members absent), and views that survive memory growth.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createCore } from '../../glue/host/loader.js';
import { createTraceCodec } from '../../glue/profiler/profiler-trace.js';
import { assertTraceInvariants } from './profiler-helpers.mjs';

// A core of its own (growth here does not disturb other suites), of the build under test.
const wasmPath = process.env.PERFSHIM_WASM;
const core = wasmPath ? createCore(new Uint8Array(readFileSync(wasmPath))) : createCore();
const codec = createTraceCodec(core);

// A trace as Chromium hands it over, with duplicates the spec's "get an element ID" would not
// have produced: the re-encoding collapses them.
const NATIVE = {
  resources: ['https://a.test/app.js', 'https://a.test/lib.js'],
  frames: [
    { name: 'main', resourceId: 0, line: 1, column: 10 },
    { name: 'work', resourceId: 0, line: 5, column: 14 },
    { name: 'Math.sqrt' },
    { name: 'work', resourceId: 0, line: 5, column: 14 }, // duplicate of 1
    { name: 'helper', resourceId: 1, line: 2, column: 1 },
  ],
  stacks: [
    { frameId: 0 },
    { frameId: 1, parentId: 0 },
    { frameId: 2, parentId: 1 },
    { frameId: 3, parentId: 0 }, // same as 1 once frames collapse
    { frameId: 4, parentId: 5 }, // parent after child
    { frameId: 0, parentId: 3 },
  ],
  samples: [
    { timestamp: 10.5, stackId: 2, marker: 'script' },
    { timestamp: 20.5, stackId: 3 },
    { timestamp: 30.5 },
    { timestamp: 40.5, stackId: 4, marker: 'gc' },
  ],
};

test('a native trace is re-encoded into the trie, duplicates collapsed', () => {
  const h = codec.create(100);
  assert.equal(codec.importTrace(h, NATIVE), 4);
  const t = codec.read(h);
  codec.free(h);
  assertTraceInvariants(t);
  assert.deepEqual(t.resources, ['https://a.test/app.js', 'https://a.test/lib.js']);
  assert.equal(t.frames.length, 4);
  assert.deepEqual(t.frames[1], { column: 14, line: 5, name: 'work', resourceId: 0 });
  assert.deepEqual(t.frames[2], { name: 'Math.sqrt' });
  // Sample 2's stack main > work is the same as stack 3's.
  assert.equal(t.samples[0].stackId !== undefined, true);
  const chain = (s) => {
    const out = [];
    for (let id = s.stackId; id !== undefined; id = t.stacks[id].parentId)
      out.unshift(t.frames[t.stacks[id].frameId].name);
    return out;
  };
  assert.deepEqual(chain(t.samples[0]), ['main', 'work', 'Math.sqrt']);
  assert.deepEqual(chain(t.samples[1]), ['main', 'work']);
  assert.deepEqual(chain(t.samples[3]), ['main', 'work', 'main', 'helper']);
  assert.equal(
    t.samples[1].stackId,
    t.stacks.findIndex((s) => s.parentId === 0 && t.frames[s.frameId].name === 'work'),
  );
});

test('absent members are absent, never null or undefined; members in IDL (lexicographic) order', () => {
  const h = codec.create(100);
  codec.importTrace(h, NATIVE);
  const t = codec.read(h);
  codec.free(h);
  assert.deepEqual(Object.keys(t), ['frames', 'resources', 'samples', 'stacks']);
  assert.deepEqual(Object.keys(t.frames[0]), ['column', 'line', 'name', 'resourceId']);
  assert.deepEqual(Object.keys(t.frames[2]), ['name']);
  assert.deepEqual(Object.keys(t.stacks[0]), ['frameId']);
  assert.deepEqual(Object.keys(t.stacks[1]), ['frameId', 'parentId']);
  assert.deepEqual(t.samples[0], {
    marker: 'script',
    stackId: t.samples[0].stackId,
    timestamp: 10.5,
  });
  assert.deepEqual(Object.keys(t.samples[2]), ['timestamp']); // empty stack: no stackId
  assert.deepEqual(Object.keys(t.samples[3]), ['marker', 'stackId', 'timestamp']);
  assert.ok(!JSON.stringify(t).includes('null'));
});

test('re-encoding a trace we produced gives the same trace back', () => {
  const h = codec.create(100);
  codec.importTrace(h, NATIVE);
  const once = codec.read(h);
  codec.free(h);
  const h2 = codec.create(100);
  codec.importTrace(h2, once);
  const twice = codec.read(h2);
  codec.free(h2);
  assert.deepEqual(twice, once);
});

test('samples beyond maxBufferSize are refused and the trace is marked full', () => {
  const h = codec.create(2);
  assert.equal(codec.importTrace(h, NATIVE), 2);
  assert.equal(codec.info(h).full, true);
  assert.equal(codec.read(h).samples.length, 2);
  codec.free(h);
});

test('samples after the stop time are left out of a re-encoded trace', () => {
  const h = codec.create(100);
  assert.equal(codec.importTrace(h, NATIVE, 25), 2);
  assert.deepEqual(
    codec.read(h).samples.map((s) => s.timestamp),
    [10.5, 20.5],
  );
  codec.free(h);
});

test('malformed traces are TypeErrors', () => {
  const bad = [
    { ...NATIVE, frames: [{ name: 'x', resourceId: 9 }], stacks: [], samples: [] },
    {
      ...NATIVE,
      stacks: [
        { frameId: 0, parentId: 1 },
        { frameId: 0, parentId: 0 },
      ],
      samples: [{ timestamp: 1, stackId: 1 }],
    },
    { ...NATIVE, stacks: [{ frameId: 99 }], samples: [{ timestamp: 1, stackId: 0 }] },
    { ...NATIVE, samples: [{ timestamp: 1, stackId: 42 }] },
    { ...NATIVE, samples: [{ timestamp: NaN }] },
  ];
  for (const t of bad) {
    const h = codec.create(100);
    assert.throws(
      () => codec.importTrace(h, t),
      (e) => e.constructor === TypeError && e.name === 'TypeError',
    );
    codec.free(h);
  }
});

test('a marker this build does not know is an error, or "other" for a browser\'s own trace', () => {
  const t = {
    ...NATIVE,
    samples: [
      { timestamp: 1, marker: 'future' },
      { timestamp: 2, marker: 'gc' },
    ],
  };
  const h = codec.create(100);
  assert.throws(
    () => codec.importTrace(h, t),
    (e) => e.constructor === TypeError && /samples\[0\]\.marker future/.test(e.message),
  );
  assert.equal(codec.importTrace(h, t, Infinity, -Infinity, undefined, true), 2);
  assert.deepEqual(
    codec.read(h).samples.map((x) => x.marker),
    ['other', 'gc'],
  );
  codec.free(h);
});

test('non-ASCII names and URLs survive the round trip', () => {
  const h = codec.create(10);
  codec.importTrace(h, {
    resources: ['https://ü.test/ß.js'],
    frames: [{ name: 'café☕', resourceId: 0, line: 1, column: 2 }, { name: '𝒻' }],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples: [{ timestamp: 1, stackId: 1 }],
  });
  const t = codec.read(h);
  codec.free(h);
  assert.deepEqual(t.resources, ['https://ü.test/ß.js']);
  assert.deepEqual(
    t.frames.map((f) => f.name),
    ['café☕', '𝒻'],
  );
});

test('views are re-derived after the core memory grows', () => {
  const before = core.memory.buffer.byteLength;
  const big = 'n'.repeat(6 * 1024 * 1024);
  const h = codec.create(10);
  assert.equal(codec.info(h).last, -Infinity, 'no sample yet');
  const trace = (name, timestamp) => ({
    resources: ['file:///big.js'],
    frames: [{ name, resourceId: 0 }],
    stacks: [{ frameId: 0 }],
    samples: [{ timestamp, stackId: 0 }],
  });
  codec.importTrace(h, trace(big, 1));
  codec.importTrace(h, trace('small', 2));
  assert.equal(codec.info(h).last, 2, "info's last: the last sample's timestamp");
  const t = codec.read(h);
  codec.free(h);
  assert.ok(core.memory.buffer.byteLength > before, 'memory grew during the test');
  assert.equal(t.frames[0].name.length, big.length);
  assert.equal(t.frames[1].name, 'small');
  assertTraceInvariants(t);
});

test('a synthetic V8 profile converts like the real ones', () => {
  const profile = {
    startTime: 5_000_000,
    endTime: 5_010_000,
    nodes: [
      {
        id: 1,
        callFrame: {
          functionName: '(root)',
          scriptId: '0',
          url: '',
          lineNumber: -1,
          columnNumber: -1,
        },
        children: [2, 3, 4],
      },
      {
        id: 2,
        callFrame: {
          functionName: '(program)',
          scriptId: '0',
          url: '',
          lineNumber: -1,
          columnNumber: -1,
        },
      },
      {
        id: 3,
        callFrame: {
          functionName: '(garbage collector)',
          scriptId: '0',
          url: '',
          lineNumber: -1,
          columnNumber: -1,
        },
      },
      {
        id: 4,
        callFrame: {
          functionName: 'run',
          scriptId: '9',
          url: 'file:///r.js',
          lineNumber: 4,
          columnNumber: 11,
        },
        children: [5],
      },
      {
        id: 5,
        callFrame: {
          functionName: 'inner',
          scriptId: '9',
          url: 'file:///r.js',
          lineNumber: 0,
          columnNumber: 0,
        },
      },
    ],
    samples: [5, 2, 3, 4],
    timeDeltas: [1000, 1000, 1000, 1000],
  };
  const h = codec.create(100);
  // offset 4990 ms: sample times 11..14 ms
  assert.equal(codec.importV8(h, profile, 4990), 4);
  const t = codec.read(h);
  codec.free(h);
  assertTraceInvariants(t);
  assert.deepEqual(t, {
    frames: [
      { column: 12, line: 5, name: 'run', resourceId: 0 },
      { column: 1, line: 1, name: 'inner', resourceId: 0 },
    ],
    resources: ['file:///r.js'],
    samples: [
      { stackId: 1, timestamp: 11 },
      { timestamp: 12 },
      { marker: 'gc', timestamp: 13 },
      { stackId: 0, timestamp: 14 },
    ],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
  });
});

test('an import whose strings move the exchange buffer keeps its records', () => {
  // A fresh core: its small exchange buffer is followed by the trace, so the strings (written
  // after the records) make it move.
  const fresh = wasmPath ? createCore(new Uint8Array(readFileSync(wasmPath))) : createCore();
  const c = createTraceCodec(fresh);
  fresh.reserve(1);
  const long = `f${'\u00e9'.repeat(40000)}\ud800`;
  const h = c.create(10);
  c.importTrace(h, {
    resources: ['https://a.test/x.js'],
    frames: [{ name: long, resourceId: 0, line: 3 }],
    stacks: [{ frameId: 0 }],
    samples: [{ timestamp: 1, stackId: 0 }],
  });
  const node = (id, name, children) => ({
    id,
    callFrame: { functionName: name, url: 'https://a.test/y.js' },
    children,
  });
  const profile = {
    nodes: [node(1, '(root)', [2]), node(2, `${long}v8`, [])],
    startTime: 0,
    samples: [2],
    timeDeltas: [2000],
  };
  const h2 = c.create(10);
  c.importV8(h2, profile, 0);
  for (const [handle, name, url] of [
    [h, long, 'https://a.test/x.js'],
    [h2, `${long}v8`, 'https://a.test/y.js'],
  ]) {
    const t = c.read(handle);
    assert.ok(t.frames[0].name === name, 'the name round-trips');
    assert.deepEqual(t.resources, [url]);
    assert.equal(t.samples.length, 1);
    c.free(handle);
  }
});
