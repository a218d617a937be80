// Measure Memory in Node: allocations show up where they were made — 50 MB in the main thread
// in the main thread's entries, 50 MB in a worker_threads worker in that worker's entries —
// and a measurement taken inside a worker covers that worker.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  measureUserAgentSpecificMemory,
  createMeasureMemory,
} from '../../glue/memory/measure-memory.js';
import { measureNode } from '../../glue/memory/measure-memory-node.js';
import { loadCore } from '../../glue/host/loader.js';

const FIXTURE = new URL('./fixtures/memory-worker.mjs', import.meta.url);
const MB = 1024 * 1024;
const workers = [];
after(() => Promise.all(workers.map((w) => w.terminate())));

/** Bytes of the entries attributed to realms matching `pred`, optionally of one type. */
function bytesOf(m, pred, type) {
  return m.breakdown
    .filter((e) => e.attribution.length > 0 && e.attribution.every(pred))
    .filter((e) => !type || e.types.includes(type))
    .reduce((a, e) => a + e.bytes, 0);
}
const isMain = (a) => a.scope === 'NodeMainThread';
const isWorker = (url) => (a) => a.scope === 'DedicatedWorkerGlobalScope' && a.url === url;

function message(w, expected) {
  return new Promise((resolve, reject) => {
    const onMsg = (m) => {
      if (expected === undefined || m === expected || (typeof m === 'object' && m !== null)) {
        w.off('message', onMsg);
        resolve(m);
      }
    };
    w.on('message', onMsg);
    w.once('error', reject);
  });
}

async function startWorker(url = FIXTURE) {
  const w = new Worker(url);
  workers.push(w);
  await message(w, 'ready');
  return w;
}

test('50 MB allocated in the main thread appear in its JavaScript entries', async () => {
  const before = await measureUserAgentSpecificMemory();
  const kept = new Array(6_553_600).fill(0.5); // 52,428,800 bytes of doubles
  const afterAlloc = await measureUserAgentSpecificMemory();
  const grown = bytesOf(afterAlloc, isMain, 'JavaScript') - bytesOf(before, isMain, 'JavaScript');
  assert.ok(grown >= 48 * MB, `main thread JavaScript grew by ${(grown / MB).toFixed(1)} MB`);
  assert.ok(afterAlloc.bytes - before.bytes >= 48 * MB);
  assert.equal(kept.length, 6_553_600);
});

test('a 50 MB ArrayBuffer in the main thread appears in its ArrayBuffer entry', async () => {
  const before = await measureUserAgentSpecificMemory();
  const buf = new ArrayBuffer(50 * MB);
  new Uint8Array(buf).fill(1);
  const afterAlloc = await measureUserAgentSpecificMemory();
  const grown = bytesOf(afterAlloc, isMain, 'ArrayBuffer') - bytesOf(before, isMain, 'ArrayBuffer');
  assert.ok(grown >= 50 * MB, `ArrayBuffer grew by ${(grown / MB).toFixed(1)} MB`);
  assert.equal(buf.byteLength, 50 * MB);
});

test('a live worker is attributed to its script URL as a DedicatedWorkerGlobalScope', async () => {
  const w = await startWorker();
  const m = await measureUserAgentSpecificMemory();
  const mine = m.breakdown.filter((e) => e.attribution.some(isWorker(FIXTURE.href)));
  assert.ok(mine.length > 0, 'the worker has entries');
  for (const e of mine) {
    assert.deepEqual(e.attribution, [{ url: FIXTURE.href, scope: 'DedicatedWorkerGlobalScope' }]);
  }
  assert.ok(bytesOf(m, isWorker(FIXTURE.href), 'JavaScript') > 0);
  assert.equal(
    m.bytes,
    m.breakdown.reduce((a, e) => a + e.bytes, 0),
  );
  await w.terminate();
});

test("50 MB allocated in a worker appear in that worker's entries, not the main thread's", async () => {
  const w = await startWorker();
  const before = await measureUserAgentSpecificMemory();
  w.postMessage('allocate-50MB');
  await message(w, 'allocated');
  const afterAlloc = await measureUserAgentSpecificMemory();
  const workerGrowth =
    bytesOf(afterAlloc, isWorker(FIXTURE.href), 'JavaScript') -
    bytesOf(before, isWorker(FIXTURE.href), 'JavaScript');
  const mainGrowth =
    bytesOf(afterAlloc, isMain, 'JavaScript') - bytesOf(before, isMain, 'JavaScript');
  assert.ok(workerGrowth >= 48 * MB, `worker grew by ${(workerGrowth / MB).toFixed(1)} MB`);
  assert.ok(mainGrowth < 16 * MB, `main thread grew by ${(mainGrowth / MB).toFixed(1)} MB only`);
  await w.terminate();
});

test('two workers are measured separately, each under its own URL', async () => {
  const urlA = new URL('?a', FIXTURE);
  const urlB = new URL('?b', FIXTURE);
  const a = await startWorker(urlA);
  const b = await startWorker(urlB);
  a.postMessage('allocate-50MB');
  await message(a, 'allocated');
  const m = await measureUserAgentSpecificMemory();
  const jsA = bytesOf(m, isWorker(urlA.href), 'JavaScript');
  const jsB = bytesOf(m, isWorker(urlB.href), 'JavaScript');
  assert.ok(jsB > 0, 'the idle worker is measured too');
  assert.ok(
    jsA - jsB >= 48 * MB,
    `worker a ${(jsA / MB).toFixed(1)} MB, worker b ${(jsB / MB).toFixed(1)} MB`,
  );
  await Promise.all([a.terminate(), b.terminate()]);
});

test('a worker started by a worker is measured too, under its own URL', async () => {
  const w = await startWorker();
  w.postMessage('spawn-nested');
  await message(w, 'nested-ready');
  const m = await measureUserAgentSpecificMemory();
  const nestedUrl = new URL('?nested', FIXTURE).href;
  assert.ok(
    bytesOf(m, isWorker(nestedUrl), 'JavaScript') > 0,
    'the nested worker has JavaScript entries',
  );
  assert.ok(bytesOf(m, isWorker(FIXTURE.href), 'JavaScript') > 0, 'and so has its owner');
  await w.terminate();
});

test('a busy worker is still measured (the inspector interrupts it)', async () => {
  const w = await startWorker();
  w.postMessage('busy');
  await message(w, 'busy');
  const m = await measureUserAgentSpecificMemory();
  assert.ok(bytesOf(m, isWorker(FIXTURE.href), 'JavaScript') > 0);
  await w.terminate();
});

test('a worker blocked in a native call past the timeout is left out, the rest resolves', async () => {
  const blocked = await startWorker(new URL('?blocked', FIXTURE));
  const idle = await startWorker(new URL('?idle', FIXTURE));
  // The worker is blocked once the marker exists: its shell, run synchronously by the worker,
  // creates the file just before it sleeps.
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-blocked-'));
  const marker = join(dir, 'in-native');
  blocked.postMessage({ blockInNative: marker });
  for (const end = Date.now() + 10000; !existsSync(marker); ) {
    assert.ok(Date.now() < end, 'the worker entered the native call');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const measure = createMeasureMemory(loadCore(), {
    source: (core) => measureNode(core, { workerTimeoutMs: 1500 }),
  });
  const m = await measure();
  assert.equal(
    bytesOf(m, isWorker(new URL('?blocked', FIXTURE).href)),
    0,
    'the blocked worker is absent',
  );
  assert.ok(
    bytesOf(m, isWorker(new URL('?idle', FIXTURE).href), 'JavaScript') > 0,
    'the idle one is measured',
  );
  assert.ok(bytesOf(m, isMain, 'JavaScript') > 0);
  await Promise.all([blocked.terminate(), idle.terminate()]);
  rmSync(dir, { recursive: true, force: true });
});

// Node >= 22.16 has worker.getHeapStatistics(): there the workers started since the source
// loaded are measured without the inspector too (used heap and external memory, url "").
const heapStatistics = typeof Worker.prototype.getHeapStatistics === 'function';
test(`without node:inspector this thread is measured${heapStatistics ? ', and the workers through worker.getHeapStatistics()' : ' only'}, still spec-shaped`, async () => {
  const w = await startWorker();
  w.postMessage('allocate-50MB');
  await message(w, 'allocated');
  const measure = createMeasureMemory(loadCore(), {
    source: (core) => measureNode(core, { inspector: false }),
  });
  const m = await measure();
  assert.equal(
    m.bytes,
    m.breakdown.reduce((a, e) => a + e.bytes, 0),
  );
  const scopes = new Set(m.breakdown.flatMap((e) => e.attribution.map((a) => a.scope)));
  if (heapStatistics) {
    assert.deepEqual([...scopes].sort(), ['DedicatedWorkerGlobalScope', 'NodeMainThread']);
    const worker = (a) => a.scope === 'DedicatedWorkerGlobalScope' && a.url === '';
    assert.ok(bytesOf(m, worker, 'JavaScript') > 50e6, 'the worker holds 50 MB');
  } else {
    assert.deepEqual([...scopes], ['NodeMainThread'], 'workers cannot be reached');
  }
  assert.ok(bytesOf(m, isMain, 'JavaScript') > 0);
  const wasm = m.breakdown.filter((e) => e.types.includes('WebAssembly'));
  assert.equal(wasm.length, 1);
  assert.equal(wasm[0].bytes, loadCore().memory.buffer.byteLength);
  await w.terminate();
});

test('measuring inside a worker measures that worker, as a DedicatedWorkerGlobalScope', async () => {
  const w = await startWorker();
  w.postMessage('allocate-50MB');
  await message(w, 'allocated');
  w.postMessage('measure');
  const { result: m } = await message(w);
  assert.equal(
    m.bytes,
    m.breakdown.reduce((a, e) => a + e.bytes, 0),
  );
  const scopes = new Set(m.breakdown.flatMap((e) => e.attribution.map((a) => a.scope)));
  assert.deepEqual([...scopes], ['DedicatedWorkerGlobalScope']);
  const js = m.breakdown
    .filter((e) => e.types.includes('JavaScript'))
    .reduce((a, e) => a + e.bytes, 0);
  assert.ok(js >= 48 * MB, `the worker's own heap holds its 50 MB (${(js / MB).toFixed(1)} MB)`);
  await w.terminate();
});
