// Measure Memory in Node: the MemoryMeasurement's shape and invariants, the attribution of the
// main thread, the promise's timing, concurrency and the exceptions of the glue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import {
  measureUserAgentSpecificMemory,
  measureMemory,
  createMeasureMemory,
  buildMeasurement,
  loadMemoryCore,
  createMemoryCore,
} from '../../glue/memory/measure-memory.js';
import { loadCore } from '../../glue/host/loader.js';

const MAIN_URL = pathToFileURL(process.argv[1]).href;
const sum = (entries) => entries.reduce((a, e) => a + e.bytes, 0);

/** Every invariant of the spec's dictionaries that holds for any result. */
function assertShape(m) {
  assert.deepEqual(Object.keys(m).sort(), ['breakdown', 'bytes']);
  assert.ok(Number.isSafeInteger(m.bytes) && m.bytes >= 0);
  assert.ok(Array.isArray(m.breakdown));
  assert.equal(m.bytes, sum(m.breakdown), 'bytes is the sum of the breakdown');
  const zero = m.breakdown.filter(
    (e) => e.bytes === 0 && e.attribution.length === 0 && e.types.length === 0,
  );
  assert.equal(zero.length, 1, 'exactly one extra zero-byte entry');
  for (const e of m.breakdown) {
    assert.deepEqual(Object.keys(e).sort(), ['attribution', 'bytes', 'types']);
    assert.ok(Number.isSafeInteger(e.bytes) && e.bytes >= 0);
    assert.ok(Array.isArray(e.types) && e.types.every((t) => typeof t === 'string'));
    assert.equal(new Set(e.types).size, e.types.length, 'types is a set');
    for (const a of e.attribution) {
      assert.ok(Object.keys(a).every((k) => ['url', 'scope', 'container'].includes(k)));
      assert.equal(typeof a.url, 'string');
      assert.equal(typeof a.scope, 'string');
      if ('container' in a) assert.deepEqual(Object.keys(a.container).sort(), ['id', 'src']);
    }
  }
}

test('measureUserAgentSpecificMemory() resolves to a spec-shaped MemoryMeasurement', async () => {
  const m = await measureUserAgentSpecificMemory();
  assertShape(m);
  assert.ok(m.bytes > 1_000_000, `a Node process uses more than 1 MB of heap (got ${m.bytes})`);
});

test('the main thread is attributed to the entry script with scope NodeMainThread, no container', async () => {
  const m = await measureUserAgentSpecificMemory();
  const main = m.breakdown.filter((e) => e.attribution.some((a) => a.scope === 'NodeMainThread'));
  assert.ok(main.length > 0);
  for (const e of main) {
    assert.deepEqual(e.attribution, [{ url: MAIN_URL, scope: 'NodeMainThread' }]);
  }
  const js = main.filter((e) => e.types.includes('JavaScript'));
  assert.ok(js.length > 0, 'V8 heap entries are typed JavaScript');
  for (const e of js) assert.equal(e.types.length, 2, 'with the V8 space as the second type');
  assert.ok(js.some((e) => e.types.includes('old_space')));
});

test("perfshim's WebAssembly memory is reported exactly; other memories count as External", async () => {
  const ext = (m) =>
    m.breakdown
      .filter(
        (e) =>
          e.types.includes('External') && e.attribution.some((a) => a.scope === 'NodeMainThread'),
      )
      .reduce((a, e) => a + e.bytes, 0);
  const before = await measureUserAgentSpecificMemory();
  const extra = new WebAssembly.Memory({ initial: 320 }); // 20 MiB
  const m = await measureUserAgentSpecificMemory();
  const wasm = m.breakdown.filter(
    (e) =>
      e.types.includes('WebAssembly') && e.attribution.some((a) => a.scope === 'NodeMainThread'),
  );
  assert.equal(wasm.length, 1);
  assert.deepEqual(wasm[0].types, ['WebAssembly']);
  assert.equal(wasm[0].bytes, loadCore().memory.buffer.byteLength);
  // (the rest of `external` moves by a few bytes between two measurements: 64 fewer seen)
  const grown = ext(m) - ext(before);
  assert.ok(
    grown >= extra.buffer.byteLength - 4096,
    `External grew by ${grown} >= ${extra.buffer.byteLength}`,
  );
});

test('measureMemory() is the same operation under the older name', async () => {
  const m = await measureMemory();
  assertShape(m);
  assert.ok(m.breakdown.some((e) => e.attribution.some((a) => a.url === MAIN_URL)));
});

test('concurrent calls each resolve with their own result', async () => {
  const all = await Promise.all([1, 2, 3, 4].map(() => measureUserAgentSpecificMemory()));
  assert.equal(new Set(all).size, 4);
  for (const m of all) assertShape(m);
});

const SIMPLE = {
  realms: [{ url: 'https://example.com', origin: 'https://example.com', scope: 'Window' }],
  entries: [{ bytes: 1000000, realms: [0], types: ['JS', 'DOM'] }],
};

test('the promise resolves in a later task, even when the source answers at once', async () => {
  const measure = createMeasureMemory(loadCore(), { source: () => SIMPLE });
  let settled = false;
  const p = measure().then((m) => {
    settled = true;
    return m;
  });
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.equal(settled, false, 'not resolved within microtasks');
  const m = await p;
  assert.equal(settled, true);
  assertShape(m);
  assert.equal(m.bytes, 1000000);
});

test("the spec's simple-page example goes through the core unchanged", () => {
  const m = buildMeasurement(loadMemoryCore(), SIMPLE, 7);
  assertShape(m);
  const e = m.breakdown.find((x) => x.bytes === 1000000);
  assert.deepEqual(e.attribution, [{ url: 'https://example.com', scope: 'Window' }]);
  assert.deepEqual([...e.types].sort(), ['DOM', 'JS']);
});

test("a measurement large enough to grow the core's memory is read correctly", () => {
  const core = createMemoryCore();
  const n = 20000;
  const realms = [];
  const entries = [];
  for (let i = 0; i < n; i++) {
    realms.push({ url: `file:///worker-${i}-\u00e9.js`, scope: 'DedicatedWorkerGlobalScope' });
    entries.push({ bytes: i + 1, realms: [i], types: ['JavaScript'] });
  }
  const before = core.memory.buffer.byteLength;
  const m = buildMeasurement(core, { realms, entries }, 1);
  assert.ok(core.memory.buffer.byteLength > before, 'memory grew during the build');
  assert.equal(m.bytes, (n * (n + 1)) / 2);
  assert.equal(m.breakdown.length, n + 1);
  const e = m.breakdown.find((x) => x.bytes === 5);
  assert.deepEqual(e.attribution, [
    { url: 'file:///worker-4-\u00e9.js', scope: 'DedicatedWorkerGlobalScope' },
  ]);
});

test('a 50,000-deep chain of nested windows builds in the wasm core', () => {
  const realms = [{ url: 'https://a.example/0', origin: 'https://a.example', scope: 'Window' }];
  for (let i = 1; i < 50000; i++) {
    realms.push({
      url: `https://a.example/${i}`,
      origin: 'https://a.example',
      scope: 'Window',
      parent: i - 1,
      container: { localName: 'iframe', id: `f${i}`, src: `/${i}` },
    });
  }
  const m = buildMeasurement(
    createMemoryCore(),
    { realms, entries: [{ bytes: 9, realms: [49999] }] },
    3,
  );
  assert.equal(m.bytes, 9);
  const e = m.breakdown.find((x) => x.bytes === 9);
  assert.deepEqual(e.attribution, [
    { url: 'https://a.example/49999', container: { id: 'f49999', src: '/49999' }, scope: 'Window' },
  ]);
});

test('an invalid intermediate measurement from a source rejects with a TypeError', async () => {
  const measure = createMeasureMemory(loadCore(), { source: () => ({ entries: [{ bytes: -1 }] }) });
  await assert.rejects(
    measure(),
    (e) =>
      e instanceof TypeError &&
      e.name === 'TypeError' &&
      /measureUserAgentSpecificMemory/.test(e.message) &&
      /entry bytes/.test(e.message),
  );
});

test('a failing source rejects the promise with its error', async () => {
  const err = new DOMException('nope', 'NotSupportedError');
  const measure = createMeasureMemory(loadCore(), {
    source: async () => {
      throw err;
    },
  });
  await assert.rejects(
    measure(),
    (e) => e === err && e instanceof DOMException && e.name === 'NotSupportedError',
  );
  const sync = createMeasureMemory(loadCore(), {
    source: () => {
      throw err;
    },
  });
  await assert.rejects(sync(), (e) => e === err);
});

test('with a brand check, a call on something else rejects with TypeError Illegal invocation', async () => {
  const perf = {};
  const measure = createMeasureMemory(loadCore(), {
    source: () => SIMPLE,
    brand: (t) => t === perf,
  });
  await assert.rejects(
    measure.call({}),
    (e) => e instanceof TypeError && e.name === 'TypeError' && /Illegal invocation/.test(e.message),
  );
  assertShape(await measure.call(perf));
});
