// Measure Memory: the core re-encoding a browser's native result ({native}, src/memory.h),
// checked in Node with results shaped like Chromium's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildMeasurement, createMemoryCore } from '../../glue/memory/measure-memory.js';

const core = createMemoryCore();
const rebuild = (native, seed = 1) => buildMeasurement(core, { native }, seed);
const sorted = (m) =>
  m.breakdown.map((e) => JSON.stringify({ ...e, types: [...e.types].sort() })).sort();

// A result as Chromium returned it in these suites (types, zero entry, Shared and DOM entries).
const CHROMIUM = {
  bytes: 36907219,
  breakdown: [
    { attribution: [], bytes: 0, types: [] },
    {
      attribution: [{ scope: 'DedicatedWorkerGlobalScope', url: 'http://127.0.0.1:1/wk.js' }],
      bytes: 10270197,
      types: ['JavaScript'],
    },
    { attribution: [], bytes: 177829, types: ['Shared'] },
    { attribution: [], bytes: 30136, types: ['DOM'] },
    {
      attribution: [
        {
          container: { id: 'fr', src: '/f.html' },
          scope: 'Window',
          url: 'http://127.0.0.1:1/f.html',
        },
      ],
      bytes: 6186008,
      types: ['JavaScript'],
    },
    {
      attribution: [{ scope: 'Window', url: 'http://127.0.0.1:1/p.html' }],
      bytes: 20243049,
      types: ['JavaScript'],
    },
  ],
};

test('a current Chromium result comes back with the same entries (one zero entry, same attributions)', () => {
  const m = rebuild(CHROMIUM);
  assert.equal(m.bytes, CHROMIUM.bytes);
  // Attribution keys come out in the draft's order (url, container, scope); compare as data.
  const norm = (e) => ({
    bytes: e.bytes,
    types: [...e.types].sort(),
    attribution: e.attribution.map((a) => ({
      url: a.url,
      ...(a.container ? { container: { id: a.container.id, src: a.container.src } } : {}),
      scope: a.scope,
    })),
  });
  assert.deepEqual(
    sorted({ breakdown: m.breakdown.map(norm) }),
    sorted({ breakdown: CHROMIUM.breakdown.map(norm) }),
  );
});

test('an older result (userAgentSpecificTypes, no zero entry) gets types and the zero entry', () => {
  const m = rebuild({
    bytes: 1500000,
    breakdown: [
      {
        bytes: 1000000,
        attribution: [{ url: 'https://example.com', scope: 'Window' }],
        userAgentSpecificTypes: ['JS', 'DOM'],
      },
      {
        bytes: 500000,
        attribution: [{ url: 'https://example.com/w.js', scope: 'DedicatedWorkerGlobalScope' }],
        userAgentSpecificTypes: ['JS'],
      },
    ],
  });
  assert.equal(m.bytes, 1500000);
  assert.equal(m.breakdown.length, 3);
  assert.equal(
    m.breakdown.filter((e) => e.bytes === 0 && e.attribution.length === 0 && e.types.length === 0)
      .length,
    1,
  );
  for (const e of m.breakdown) {
    assert.ok(Array.isArray(e.types));
    assert.equal('userAgentSpecificTypes' in e, false);
  }
});

test('a total beyond the breakdown stays in the total as an unattributed entry', () => {
  const m = rebuild({ bytes: 1000000, breakdown: [] });
  assert.equal(m.bytes, 1000000);
  assert.deepEqual(
    sorted(m),
    sorted({
      breakdown: [
        { bytes: 1000000, attribution: [], types: [] },
        { bytes: 0, attribution: [], types: [] },
      ],
    }),
  );
});

test('cross-origin-aggregated attributions keep their container and are not merged with others', () => {
  const agg = {
    url: 'cross-origin-url',
    container: { id: 'a', src: 'https://a.example/' },
    scope: 'cross-origin-aggregated',
  };
  const m = rebuild({
    bytes: 30,
    breakdown: [
      { bytes: 10, attribution: [agg], types: ['JavaScript'] },
      { bytes: 20, attribution: [agg], types: ['DOM'] },
    ],
  });
  // Host-resolved tokens are taken as given: the browser already chose its entries.
  assert.deepEqual(
    m.breakdown
      .filter((e) => e.bytes)
      .map((e) => e.bytes)
      .sort((x, y) => x - y),
    [10, 20],
  );
  for (const e of m.breakdown.filter((x) => x.bytes)) assert.deepEqual(e.attribution, [agg]);
});

test('a malformed native result is a TypeError from the core, not a made-up number', () => {
  assert.throws(
    () => rebuild({ bytes: 5, breakdown: [{ bytes: -5, attribution: [], types: [] }] }),
    (e) => e instanceof TypeError && e.name === 'TypeError' && /entry bytes/.test(e.message),
  );
});
