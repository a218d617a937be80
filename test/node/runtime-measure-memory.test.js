// measureUserAgentSpecificMemory() in the runtime the suite runs in (Node: V8 through
// node:inspector; Bun: JavaScriptCore's figures after Bun.gc(true); Deno: V8's heap spaces after
// a GC through its inspector): bytes > 0 with a breakdown of this thread's realm, an ArrayBuffer
// the test holds counted, the perfshim core's memory as "WebAssembly". Runtime-portable: `make
// test-bun` and `make test-deno` run it too.
import test from 'node:test';
import assert from 'node:assert/strict';
import { performance } from '../../glue/index.js';
import { loadCore } from '../../glue/host/loader.js';

const runtime = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';
const SCOPE = { node: 'NodeMainThread', bun: 'BunMainThread', deno: 'DenoMainThread' }[runtime];
const bytesOf = (m, type) =>
  m.breakdown.filter((e) => e.types.includes(type)).reduce((a, e) => a + e.bytes, 0);

test(`${runtime}: bytes > 0, broken down by type, attributed to this thread`, async () => {
  const held = new Uint8Array(32 << 20).fill(1);
  const m = await performance.measureUserAgentSpecificMemory();
  assert.ok(m.bytes > held.length, String(m.bytes));
  assert.equal(
    m.bytes,
    m.breakdown.reduce((a, e) => a + e.bytes, 0),
  );
  assert.ok(bytesOf(m, 'JavaScript') > 0, 'JavaScript');
  // Deno reports no ArrayBuffer figure: its External (V8's external bytes) holds them; Bun's
  // ArrayBuffer counts ArrayBuffer objects, its External a typed array's store without one.
  const buffers =
    runtime === 'node'
      ? bytesOf(m, 'ArrayBuffer')
      : runtime === 'deno'
        ? bytesOf(m, 'External')
        : bytesOf(m, 'ArrayBuffer') + bytesOf(m, 'External');
  assert.ok(buffers >= held.length, `${buffers} buffer bytes`);
  assert.equal(bytesOf(m, 'WebAssembly') >= loadCore().memory.buffer.byteLength, true);
  for (const e of m.breakdown.filter((e) => e.bytes > 0)) {
    assert.equal(e.attribution.length, 1);
    assert.equal(e.attribution[0].scope, SCOPE);
    assert.match(e.attribution[0].url, /^file:/);
  }
  assert.equal(held[0], 1);
});
