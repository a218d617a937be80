// Measure Memory in Node with more live workers than an EventEmitter's default listener limit
// (10): every worker is measured and no MaxListenersExceededWarning is printed, call after call.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { measureNode } from '../../glue/memory/measure-memory-node.js';

const COUNT = 12;
const workers = [];
after(() => Promise.all(workers.map((w) => w.terminate())));

test(`${COUNT} live workers: each measured, no MaxListenersExceededWarning`, async () => {
  const online = [];
  for (let i = 0; i < COUNT; i++) {
    const w = new Worker('setInterval(() => {}, 1000);', { eval: true });
    workers.push(w);
    online.push(new Promise((resolve) => w.once('online', resolve)));
  }
  await Promise.all(online);
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    for (let call = 0; call < 2; call++) {
      const { realms } = await measureNode(null, { workerTimeoutMs: 20000 });
      const measured = realms.filter((r) => r.scope === 'DedicatedWorkerGlobalScope');
      assert.equal(measured.length, COUNT, `call ${call}: every worker measured`);
    }
    // A warning is emitted on the next tick: let it arrive before looking.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  assert.deepEqual(
    warnings.map((w) => `${w.name}: ${w.message}`),
    [],
  );
});
