// The shared-stack sampler's worker is the text of one function of the glue
// (glue/instrument/source.js, samplerWorker), minified with the rest of the bundle: run as the
// dist ships it, in a worker of its own, it must name nothing the worker does not have (the
// bundle's keepNames helper `__name` wrapped named functions in it once) and sample the stack.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import * as acorn from 'acorn';
import { STACK_BASE } from '../../glue/instrument/probes.js';

const dist = readFileSync(new URL('../../dist/perfshim.mjs', import.meta.url), 'utf8');

test("dist: the sampler worker's code runs in a worker of its own and samples the stack", async () => {
  const ast = acorn.parse(dist, { ecmaVersion: 'latest', sourceType: 'module' });
  const fn = ast.body.find(
    (n) => n.type === 'FunctionDeclaration' && n.id.name === 'samplerWorker',
  );
  assert.ok(fn, 'dist/perfshim.mjs declares samplerWorker');
  const text = dist.slice(fn.start, fn.end);
  const stack = new Int32Array(new SharedArrayBuffer(4 * (STACK_BASE + 4)));
  stack.set([3], 0);
  stack.set([7, 8, 9], STACK_BASE);
  const ctl = new Int32Array(new SharedArrayBuffer(16));
  const w = new Worker(`(${text})(${STACK_BASE}, 20, require('node:worker_threads').parentPort)`, {
    eval: true,
  });
  try {
    const batches = [];
    let enough;
    const ten = new Promise((r) => {
      enough = r;
    });
    const done = new Promise((resolve, reject) => {
      w.on('error', reject);
      w.on('message', (m) => {
        if (m.batch) batches.push(...m.batch);
        if (batches.length >= 5 * 10) enough();
        if (m.done) resolve();
      });
    });
    w.postMessage({
      stack: stack.buffer,
      ctl: ctl.buffer,
      interval: 1,
      origin: performance.timeOrigin,
    });
    // (ten snapshots, however long a loaded machine takes to start the worker and run it)
    const timer = setTimeout(enough, 10000);
    await Promise.race([ten, done]);
    clearTimeout(timer);
    Atomics.store(ctl, 0, 1);
    Atomics.notify(ctl, 0);
    await done;
    // snapshots: [time, depth, ...frames]
    assert.ok(batches.length >= 5 * 10, `${batches.length / 5} snapshots`);
    for (let i = 0; i < batches.length; i += 5)
      assert.deepEqual(batches.slice(i + 1, i + 5), [3, 7, 8, 9]);
    assert.equal(Atomics.load(ctl, 1), 1, 'the worker wrote its start');
  } finally {
    await w.terminate();
  }
});
