// An import whose records would pass 2^32 bytes (a sparse array's length × record size, which a
// u32 reservation wraps to a few bytes) is a TypeError naming the list, before anything is
// written: the timeline, which shares the core, keeps every mark. The io layer refuses such a
// reservation itself (RangeError), and the core refuses counts its exchange buffer does not hold.
import test from 'node:test';
import assert from 'node:assert/strict';
import { performance, toCpuProfile, toSpeedscope, fromCpuProfile } from '../../glue/index.js';
import { loadCore } from '../../glue/host/loader.js';

const EMPTY = { resources: [], frames: [], stacks: [], samples: [] };
/** A sparse array of `length` whose first `filled` elements are make(i). */
function sparse(length, filled = 0, make = () => ({})) {
  const a = new Array(length);
  for (let i = 0; i < filled; i++) a[i] = make(i);
  return a;
}
const NODES = [
  { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2] },
  { id: 2, callFrame: { functionName: 'f', url: 'file:///a.js' } },
];

// The exchange buffer first, then the marks: the timeline's memory lies after it, where a
// wrapped reservation's writes land.
toSpeedscope(EMPTY);
const marks = Array.from({ length: 5000 }, (_, i) => `keep-${i}`);
for (const name of marks) performance.mark(name, { detail: { name } });

function assertMarksIntact() {
  for (const name of marks) {
    const found = performance.getEntriesByName(name, 'mark');
    assert.equal(found.length, 1, name);
    assert.deepEqual(found[0].detail, { name });
  }
  const m = performance.measure('after', marks[0], marks[4999]);
  assert.equal(m.duration, performance.getEntriesByName(marks[4999])[0].startTime - m.startTime);
  performance.clearMeasures('after');
}

const CASES = [
  // 107374183 × 5 f64 = 2^32 + 24 bytes; the first 100,000 real frames were written past a
  // 24-byte reservation.
  [
    'frames',
    () => toCpuProfile({ ...EMPTY, frames: sparse(107374183, 100000, (i) => ({ name: `f${i}` })) }),
    /trace\.frames is too long to import/,
  ],
  [
    'stacks',
    () => toSpeedscope({ ...EMPTY, stacks: sparse(268435456) }),
    /trace\.stacks is too long to import/,
  ],
  [
    'samples',
    () => toCpuProfile({ ...EMPTY, samples: sparse(178956971) }),
    /trace\.samples is too long to import/,
  ],
  [
    'resources',
    () => toCpuProfile({ ...EMPTY, resources: sparse(268435456, 1000, (i) => `r${i}`) }),
    /trace\.resources is too long to import/,
  ],
  [
    '.cpuprofile nodes',
    () => fromCpuProfile({ nodes: sparse(53687092), startTime: 0 }),
    /profile\.nodes is too long to import/,
  ],
  [
    '.cpuprofile samples and timeDeltas',
    () =>
      fromCpuProfile({
        nodes: NODES,
        startTime: 0,
        samples: sparse(268435457),
        timeDeltas: sparse(268435457),
      }),
    /profile\.samples is too long to import/,
  ],
  [
    'a node with a huge children list',
    () =>
      fromCpuProfile({
        nodes: [{ id: 1, callFrame: { functionName: '(root)' }, children: sparse(536870912) }],
        startTime: 0,
      }),
    /profile\.nodes\[0\]\.children is too long to import/,
  ],
];

for (const [what, call, message] of CASES) {
  test(`${what} past 2^32 bytes of records: TypeError, the marks intact`, () => {
    assert.throws(
      call,
      (e) => e instanceof TypeError && e.name === 'TypeError' && message.test(e.message),
    );
    assertMarksIntact();
  });
}

test('an array-like Proxy of valid frames is refused by its length, without reading them', () => {
  let reads = 0;
  const frames = new Proxy(new Array(107374183), {
    get(target, key) {
      if (key !== 'length') reads++;
      return key === 'length' ? target.length : { name: 'f' };
    },
  });
  assert.throws(() => toCpuProfile({ ...EMPTY, frames }), { name: 'TypeError' });
  assert.equal(reads, 0);
  assertMarksIntact();
});

test('the io layer refuses a reservation past PS_EXCHANGE_MAX (it would wrap at 2^32)', () => {
  const core = loadCore();
  for (const bytes of [2 ** 32 + 24, 2 ** 31, Number.NaN])
    assert.throws(() => core.reserve(bytes), { name: 'RangeError' });
  assertMarksIntact();
});
