// The log sampler's records (probes.js, src/instrument.h): a push is one record with its frame id
// and depth, and a pop writes nothing unless it ends or starts a long gap. Stacks deeper than a
// record's depth field holds (1023) and frame ids past its id field (2^21 - 1) go through the
// logger's escapes: the samples name the same frames at the same depths as anywhere else.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../glue/host/loader.js';
import { createProfilerClass } from '../../glue/profiler/profiler.js';
import { instrument } from '../../glue/instrument/transform.js';
import { createInstrumentSource } from '../../glue/instrument/source.js';
import { getProbes } from '../../glue/instrument/probes.js';
import { assertTraceInvariants } from './profiler-helpers.mjs';

const load = (code, file) =>
  import(
    `data:text/javascript,${encodeURIComponent(instrument(code, { file, url: `https://example.test/${file}` }).code)}`
  );

// spin: a leaf long enough to be sampled; rec: n frames of itself over spin.
const SOURCE =
  'export function spin(ms) { const end = performance.now() + ms; let x = 0; while (performance.now() < end) x++; return x; }\n' +
  'export function rec(n, ms) { if (n === 0) return spin(ms); return rec(n - 1, ms) + 1; }\n' +
  'export function outer(ms, deep, shallow) { const end = performance.now() + ms; let k = 0;\n' +
  '  while (performance.now() < end) { k += rec(deep, 0.3) + rec(shallow, 0.3); } return k; }\n';

/** Each sampled stack's frame names, outermost first (none for an idle sample). */
function stacks(t) {
  return t.samples
    .filter((s) => s.stackId !== undefined)
    .map((s) => {
      const names = [];
      for (let id = s.stackId; id !== undefined; id = t.stacks[id].parentId)
        names.unshift(t.frames[t.stacks[id].frameId].name);
      return names;
    });
}

/** How many samples in spin had each depth of rec under them; fails on any other shape. */
function recDepths(t) {
  const depths = {};
  for (const names of stacks(t)) {
    assert.equal(names[0], 'outer');
    const recs = names.slice(1).filter((n) => n === 'rec').length;
    const rest = names.slice(1 + recs);
    assert.ok(
      names.slice(1, 1 + recs).every((n) => n === 'rec'),
      names.join('>'),
    );
    assert.ok(
      rest.length === 0 || (rest.length === 1 && rest[0] === 'spin'),
      names.slice(-3).join('>'),
    );
    if (rest.length) depths[recs] = (depths[recs] || 0) + 1;
  }
  return depths;
}

const Profiler = createProfilerClass(loadCore(), {
  source: createInstrumentSource({ mode: 'log' }),
});

test('log: stacks past 1023 frames keep every frame at its depth', async () => {
  const m = await load(SOURCE, 'deep.js');
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  m.outer(300, 1500, 3);
  const t = await p.stop();
  assertTraceInvariants(t);
  const depths = recDepths(t);
  // spin runs under 1501 frames of rec, or under 4: no other depth
  assert.deepEqual(
    Object.keys(depths).sort((a, b) => a - b),
    ['4', '1501'],
  );
  assert.ok(depths[4] > 10 && depths[1501] > 10, JSON.stringify(depths));
  assert.equal(getProbes().S[0], 0);
});

test('log: frames whose ids pass 2^21 - 1 are sampled by name', async () => {
  // A frame table that takes the realm's ids past what a record holds (2^21 frames with no
  // names), then the file: its frames' ids are past it.
  const P = getProbes();
  const n = 1 << 21;
  P.reg(n, ['https://example.test/filler.js'], ','.repeat(n), '1,1,'.repeat(n - 1) + '0,1');
  const m = await load(SOURCE, 'big-ids.js');
  assert.ok(P.n > n);
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  m.outer(200, 5, 1);
  const t = await p.stop();
  assertTraceInvariants(t);
  const depths = recDepths(t);
  assert.deepEqual(Object.keys(depths).sort(), ['2', '6']);
  assert.ok(depths[2] > 5 && depths[6] > 5, JSON.stringify(depths));
  assert.equal(P.S[0], 0);
});
