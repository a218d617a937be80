// The loader and the exchange buffer: strings cross as WTF-8, views survive memory growth, and
// the suites really run on the build PERFSHIM_WASM names (the debug build in `make test`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCore, loadCore } from '../../glue/loader.js';

test('putString writes WTF-8: ASCII, 2-, 3- and 4-byte sequences, lone surrogates kept apart', () => {
  const core = createCore();
  const bytesOf = (s) => {
    const n = core.putString(s);
    return Array.from(new Uint8Array(core.memory.buffer, core.x.ps_exchange_reserve(1), n));
  };
  assert.deepEqual(bytesOf('Az'), [0x41, 0x7a]);
  assert.deepEqual(bytesOf('é'), [0xc3, 0xa9]);
  assert.deepEqual(bytesOf('€'), [0xe2, 0x82, 0xac]);
  assert.deepEqual(bytesOf('😀'), [0xf0, 0x9f, 0x98, 0x80]);
  assert.deepEqual(bytesOf('\ud800'), [0xed, 0xa0, 0x80]);
  assert.deepEqual(bytesOf('\udc00x'), [0xed, 0xb0, 0x80, 0x78]);
  assert.deepEqual(bytesOf(''), []);
  const valid = 'naïve ☕ 😀';
  assert.equal(core.getString(core.x.ps_exchange_reserve(1), core.putString(valid)), valid);
});

test('views are re-derived after the memory grows', () => {
  const core = createCore();
  const out = core.out();
  const whole = core.u32();
  const before = core.memory.buffer.byteLength;
  // Ask for 64 MiB of exchange buffer: the memory must grow, detaching old views.
  assert.notEqual(core.x.ps_exchange_reserve(64 * 1024 * 1024), 0);
  assert.ok(core.memory.buffer.byteLength > before, 'memory grew');
  assert.equal(out.length, 0, 'the old view is detached');
  assert.equal(whole.length, 0, 'the old whole-memory view too');
  assert.equal(core.u32().length, core.memory.buffer.byteLength / 4, 'u32() is re-derived over the grown memory');
  const a = core.x.ps_timeline_name_new();
  assert.ok(core.x.ps_timeline_add(0, a, 5, 0) >= 0);
  assert.equal(core.x.ps_usertiming_measure(0, 0, 2, a, 0, 0, 0, 0, 12), 0);
  assert.deepEqual([core.out()[0], core.out()[1]], [5, 7], 'a fresh view reads the new results');
  assert.equal(core.x.ps_timeline_query(0, a), 1);
  assert.equal(core.results(1).length, 1);
});

test('the suites run on the core build that PERFSHIM_WASM names', () => {
  const names = WebAssembly.Module.customSections(loadCore().module, 'name').length;
  if (process.env.PERFSHIM_WASM) assert.ok(names > 0, 'the debug build carries a name section');
  else assert.equal(names, 0, 'the release build carries none');
});
