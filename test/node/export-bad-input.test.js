// What is not a trace (or not a .cpuprofile) is a TypeError that names the problem: never a
// crash, a hang, or a document written from half a trace.
import test from 'node:test';
import assert from 'node:assert/strict';
import { exportersUnderTest, HAND_BUILT } from './fixtures/export-traces.mjs';

const ex = exportersUnderTest();
const EXPORTS = ['toCpuProfile', 'toSpeedscope', 'toTraceEvents', 'toFirefoxProfile'];
const GOOD = HAND_BUILT.SHARED_PREFIXES;
const withMember = (k, v) => ({ ...GOOD, [k]: v });

const BAD_TRACES = [
  ['undefined', undefined, /expected a ProfilerTrace object, got undefined/],
  ['null', null, /got null/],
  ['a number', 42, /got number/],
  ['no arrays', {}, /trace\.resources must be an array/],
  ['samples missing', withMember('samples', undefined), /trace\.samples must be an array/],
  ['frames not an array', withMember('frames', { length: 1 }), /trace\.frames must be an array/],
  [
    'a resource that is not a string',
    withMember('resources', [1]),
    /trace\.resources\[0\] must be a string/,
  ],
  [
    'a frame without a name',
    withMember('frames', [{ line: 1 }]),
    /trace\.frames\[0\]\.name must be a string/,
  ],
  [
    'a resource id out of range',
    withMember('frames', [{ name: 'f', resourceId: 9 }]),
    /resourceId 9 is not a resource id/,
  ],
  [
    'a fractional line',
    withMember('frames', [{ name: 'f', line: 1.5 }]),
    /line must be a positive integer/,
  ],
  [
    'a frame id out of range',
    withMember('stacks', [{ frameId: 99 }]),
    /trace\.stacks\[0\]\.frameId 99/,
  ],
  [
    'a parent id out of range',
    withMember('stacks', [{ frameId: 0, parentId: 6 }]),
    /parentId 6 is not a stack id/,
  ],
  ['a negative parent id', withMember('stacks', [{ frameId: 0, parentId: -1 }]), /parentId -1/],
  [
    'a two-stack cycle',
    {
      ...GOOD,
      stacks: [
        { frameId: 0, parentId: 1 },
        { frameId: 1, parentId: 0 },
      ],
      samples: [],
    },
    /cycle/,
  ],
  [
    'a stack that is its own parent',
    { ...GOOD, stacks: [{ frameId: 0, parentId: 0 }], samples: [] },
    /cycle/,
  ],
  [
    'a stack id out of range',
    withMember('samples', [{ timestamp: 1, stackId: 6 }]),
    /samples\[0\]\.stackId 6/,
  ],
  [
    'a string timestamp',
    withMember('samples', [{ timestamp: '1' }]),
    /timestamp must be a finite number/,
  ],
  [
    'a NaN timestamp',
    withMember('samples', [{ timestamp: NaN }]),
    /timestamp must be a finite number/,
  ],
  [
    'an infinite timestamp',
    withMember('samples', [{ timestamp: Infinity }]),
    /timestamp must be a finite number/,
  ],
  ['no timestamp', withMember('samples', [{ stackId: 0 }]), /timestamp must be a finite number/],
  [
    'an unknown marker',
    withMember('samples', [{ timestamp: 1, marker: 'sleep' }]),
    /marker sleep is not a ProfilerMarker/,
  ],
  ['a null sample', withMember('samples', [null]), /samples\[0\] must be an object/],
];

for (const fn of EXPORTS) {
  for (const [what, trace, message] of BAD_TRACES) {
    test(`${fn} refuses ${what} with a TypeError`, () => {
      assert.throws(
        () => ex[fn](trace),
        (e) =>
          e instanceof TypeError &&
          message.test(e.message) &&
          e.message.startsWith(`perfshim ${fn}: `),
      );
    });
  }
}

test('a long cycle (100,000 stacks in a ring) is found without hanging', () => {
  const n = 100000;
  const stacks = Array.from({ length: n }, (_, i) => ({ frameId: 0, parentId: (i + 1) % n }));
  const t = {
    resources: [],
    frames: [{ name: 'f' }],
    stacks,
    samples: [{ timestamp: 1, stackId: 5 }],
  };
  assert.throws(
    () => ex.toCpuProfile(t),
    (e) => e instanceof TypeError && /cycle/.test(e.message),
  );
});

test('a refused trace leaves the core usable (its scratch trace is freed)', () => {
  for (let i = 0; i < 50; i++)
    assert.throws(
      () => ex.toCpuProfile(withMember('samples', [{ timestamp: 1, stackId: 99 }])),
      TypeError,
    );
  assert.equal(ex.toCpuProfile(GOOD).samples.length, GOOD.samples.length);
});

test('toTraceEvents refuses bad options and bad entries', () => {
  const bad = (options, re) =>
    assert.throws(
      () => ex.toTraceEvents(GOOD, options),
      (e) => e instanceof TypeError && re.test(e.message),
    );
  bad({ entries: 5 }, /entries must be iterable/);
  bad({ entries: null }, /entries must be iterable/);
  bad({ pid: -1 }, /pid and tid/);
  bad({ tid: 1.5 }, /pid and tid/);
  bad({ entries: [null] }, /entries\[0\] must be a PerformanceEntry-like object/);
  bad(
    { entries: [{ name: 'm', entryType: 'mark', startTime: 'x' }] },
    /startTime must be a finite number/,
  );
  bad(
    { entries: [{ name: 'm', entryType: 'measure', startTime: 1, duration: NaN }] },
    /duration must be a finite number/,
  );
});

test('toFirefoxProfile refuses a bad timeOrigin or interval', () => {
  for (const options of [
    { timeOrigin: NaN },
    { timeOrigin: '0' },
    { interval: -1 },
    { interval: Infinity },
  ]) {
    assert.throws(
      () => ex.toFirefoxProfile(GOOD, options),
      (e) => e instanceof TypeError && /timeOrigin|interval/.test(e.message),
    );
  }
});

test('a detail that JSON cannot hold is left out rather than failing the export', () => {
  const cyclic = {};
  cyclic.self = cyclic;
  const doc = ex.toTraceEvents(GOOD, {
    entries: [
      { name: 'm', entryType: 'mark', startTime: 1, duration: 0, detail: cyclic },
      { name: 'b', entryType: 'mark', startTime: 2, duration: 0, detail: 10n },
    ],
  });
  const marks = doc.traceEvents.filter((e) => e.cat === 'blink.user_timing');
  assert.equal(marks.length, 2);
  assert.ok(marks.every((e) => !('detail' in e.args)));
});

const CP = () => ex.toCpuProfile(GOOD);
const BAD_PROFILES = [
  ['not JSON', '{"nodes": [', /not JSON/],
  ['null', null, /expected a \.cpuprofile object, got null/],
  ['an array', [], /got an array/],
  ['no nodes', { startTime: 0, samples: [], timeDeltas: [] }, /profile\.nodes must be an array/],
  ['no startTime', () => ({ ...CP(), startTime: undefined }), /startTime must be a finite number/],
  ['a string startTime', () => ({ ...CP(), startTime: '0' }), /startTime must be a finite number/],
  ['deltas of another length', () => ({ ...CP(), timeDeltas: [0] }), /differ in length/],
  [
    'a non-numeric delta',
    () => {
      const p = CP();
      p.timeDeltas[1] = 'x';
      return p;
    },
    /timeDeltas\[1\] must be a finite number/,
  ],
  [
    'a sample of an unknown node',
    () => {
      const p = CP();
      p.samples[0] = 999;
      return p;
    },
    /samples\[0\] names node 999/,
  ],
  [
    'a duplicate node id',
    () => {
      const p = CP();
      p.nodes[2].id = p.nodes[1].id;
      return p;
    },
    /is used twice/,
  ],
  [
    'a negative node id',
    () => {
      const p = CP();
      p.nodes[1].id = -3;
      return p;
    },
    /id must be a non-negative integer/,
  ],
  [
    'a node without callFrame',
    () => {
      const p = CP();
      delete p.nodes[1].callFrame;
      return p;
    },
    /callFrame must be an object/,
  ],
  [
    'a numeric functionName',
    () => {
      const p = CP();
      p.nodes[1].callFrame.functionName = 3;
      return p;
    },
    /functionName must be a string/,
  ],
  [
    'a line below -1',
    () => {
      const p = CP();
      p.nodes[1].callFrame.lineNumber = -2;
      return p;
    },
    /lineNumber must be an integer >= -1/,
  ],
  [
    'an unknown child',
    () => {
      const p = CP();
      p.nodes[1].children.push(12345);
      return p;
    },
    /names node 12345/,
  ],
  [
    'a node with two parents',
    () => {
      const p = CP();
      p.nodes[0].children.push(p.nodes[1].children[0]);
      return p;
    },
    /has two parents/,
  ],
  [
    'a cycle',
    () => {
      const p = CP();
      const a = p.nodes[1];
      a.children.push(p.nodes[0].id);
      return p;
    },
    /cycle|two parents/,
  ],
  [
    'a cycle off the root',
    () => ({
      startTime: 0,
      samples: [2],
      timeDeltas: [0],
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [] },
        { id: 2, callFrame: { functionName: 'a', url: '' }, children: [3] },
        { id: 3, callFrame: { functionName: 'b', url: '' }, children: [2] },
      ],
    }),
    /cycle through node/,
  ],
];

for (const [what, input, message] of BAD_PROFILES) {
  test(`fromCpuProfile refuses ${what} with a TypeError`, () => {
    const p = typeof input === 'function' ? input() : input;
    assert.throws(
      () => ex.fromCpuProfile(p),
      (e) =>
        e instanceof TypeError &&
        message.test(e.message) &&
        e.message.startsWith('perfshim fromCpuProfile: '),
    );
  });
}

test('fromCpuProfile refuses a non-finite offsetMs', () => {
  assert.throws(
    () => ex.fromCpuProfile(CP(), { offsetMs: NaN }),
    (e) => e instanceof TypeError && /offsetMs/.test(e.message),
  );
});

test('a .cpuprofile with optional members absent (url, positions, samples) imports', () => {
  const t = ex.fromCpuProfile({
    startTime: 0,
    nodes: [
      { id: 1, callFrame: { functionName: '(root)' }, children: [2] },
      { id: 2, callFrame: { functionName: 'f' } },
    ],
  });
  assert.deepEqual(t, { frames: [], resources: [], samples: [], stacks: [] });
  const u = ex.fromCpuProfile({
    startTime: 1000,
    samples: [2],
    timeDeltas: [500],
    nodes: [
      { id: 1, callFrame: { functionName: '(root)' }, children: [2] },
      { id: 2, callFrame: { functionName: 'f' } },
    ],
  });
  assert.deepEqual(u, {
    frames: [{ name: 'f' }],
    resources: [],
    samples: [{ stackId: 0, timestamp: 1.5 }],
    stacks: [{ frameId: 0 }],
  });
});
