// The io layer (glue/host/io.js over src/exchange.c): strings cross as WTF-8 both ways, blobs come out
// and are released, views survive memory growth, and the suites really run on the build
// PERFSHIM_WASM names (the debug build in `make test`).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as abi from '../../glue/host/abi.js';
import { decode, encodeInto } from '../../glue/host/io.js';
import { createCore, lazyCore, loadCore } from '../../glue/host/loader.js';
import { createMemoryCore, loadMemoryCore } from '../../glue/memory/measure-memory.js';
import { createTraceCodec } from '../../glue/profiler/profiler-trace.js';

test('putString writes WTF-8: ASCII, 2-, 3- and 4-byte sequences, lone surrogates kept apart', () => {
  const core = createCore();
  const bytesOf = (s) => {
    const n = core.putString(s);
    return Array.from(core.u8().subarray(core.reserve(1), core.reserve(1) + n));
  };
  assert.deepEqual(bytesOf('Az'), [0x41, 0x7a]);
  assert.deepEqual(bytesOf('é'), [0xc3, 0xa9]);
  assert.deepEqual(bytesOf('€'), [0xe2, 0x82, 0xac]);
  assert.deepEqual(bytesOf('😀'), [0xf0, 0x9f, 0x98, 0x80]);
  assert.deepEqual(bytesOf('\ud800'), [0xed, 0xa0, 0x80]);
  assert.deepEqual(bytesOf('\udc00x'), [0xed, 0xb0, 0x80, 0x78]);
  assert.deepEqual(bytesOf('\ud83d\ud83d\ude00'), [0xed, 0xa0, 0xbd, 0xf0, 0x9f, 0x98, 0x80]);
  assert.deepEqual(bytesOf(''), []);
});

test('every string decodes back to itself: lone surrogates, a leading BOM, long strings', () => {
  const core = createCore();
  const samples = [
    'naïve ☕ 😀',
    'a\ud800b',
    '\udc00',
    'x\udbff',
    '\ud800\ud800\udc00',
    '\ufeffbom',
    '',
    'ab'.repeat(5000) + '\ud800',
    String.fromCharCode(...Array.from({ length: 2048 }, (_, i) => i * 31 + 1)),
  ];
  for (const s of samples) {
    const n = core.putString(s); // first: writing may move the exchange buffer
    const at = core.reserve(1);
    assert.ok(decode(core.u8(), at, at + n) === s, JSON.stringify(s.slice(0, 20)));
  }
  // Bytes that are not WTF-8 at all (a stray continuation byte, a truncated sequence) become
  // U+FFFD as the Encoding Standard decodes them, lone surrogates beside them kept.
  const b = new Uint8Array([0x61, 0x80, 0x62, 0xe2, 0x82, 0xed, 0xb0, 0x80]);
  assert.equal(decode(b, 0, b.length), 'a\ufffdb\ufffd\udc00');
  const room = new Uint8Array(9);
  assert.equal(encodeInto('a\ud800b', room, 2), 5);
  assert.equal(decode(room, 2, 7), 'a\ud800b');
});

test('a blob comes out as {ptr, len} and is released once read', () => {
  const core = createCore();
  const h = core.x.ps_trace_new(4);
  const trace = { resources: [], frames: [{ name: 'f\ud800' }], stacks: [], samples: [] };
  createTraceCodec(core).importTrace(h, trace);
  assert.deepEqual(core.takeStrings(core.x.ps_trace_strings(h, abi.PS_STRINGS_NAMES)), ['f\ud800']);
  assert.equal(core.x.ps_blob_ptr(), 0, 'released');
  assert.equal(core.x.ps_blob_len(), 0);
  core.x.ps_trace_free(h);
  const mem = createMemoryCore(); // the Measure Memory core's result is an owned blob
  assert.equal(mem.x.ps_memory_build(mem.putString('{"realms":[]}'), 1), 0);
  assert.ok(mem.x.ps_blob_len() > 0);
  assert.equal(mem.takeJSON().bytes, 0);
  assert.equal(mem.x.ps_blob_ptr(), 0, 'an owned blob is freed');
});

test('a negative status becomes the exception of the one table', () => {
  const core = createCore();
  assert.equal(core.check(3, 'ctx'), 3);
  assert.throws(() => core.check(-9, "Failed to execute 'x' on 'Y'"), {
    name: 'TypeError',
    message: /^Failed to execute 'x' on 'Y': /,
  });
  assert.throws(() => core.check(-1, 'ctx'), { name: 'RangeError' });
  assert.throws(() => core.check(-19, 'ctx'), {
    name: 'TypeError',
    message: 'ctx: malformed input',
  });
});

test('views are re-derived after the memory grows', () => {
  const core = createCore();
  const out = core.out();
  const whole = core.u32();
  const before = core.memory.buffer.byteLength;
  // Ask for 64 MiB of exchange buffer: the memory must grow, detaching old views.
  assert.notEqual(core.reserve(64 * 1024 * 1024), 0);
  assert.ok(core.memory.buffer.byteLength > before, 'memory grew');
  assert.equal(out.length, 0, 'the old view is detached');
  assert.equal(whole.length, 0, 'the old whole-memory view too');
  assert.equal(
    core.u32().length,
    core.memory.buffer.byteLength / 4,
    'u32() is re-derived over the grown memory',
  );
  const a = core.x.ps_timeline_name_new();
  assert.ok(core.x.ps_timeline_add(0, a, 5, 0) >= 0);
  assert.equal(core.x.ps_usertiming_measure(0, 0, 2, a, 0, 0, 0, 0, 12), 0);
  assert.deepEqual([core.out()[0], core.out()[1]], [5, 7], 'a fresh view reads the new results');
  assert.equal(core.x.ps_timeline_query(0, a), 1);
  assert.ok(core.u32()[core.results()] >= 0);
});

test("a lazy core instantiates on first use and then has the core's own members", () => {
  let made = 0;
  const lazy = lazyCore(() => {
    made++;
    return createCore();
  });
  assert.equal(made, 0);
  assert.equal(typeof lazy.putString, 'function');
  assert.equal(made, 1);
  assert.ok(Object.hasOwn(lazy, 'x') && Object.hasOwn(lazy, 'check'));
  assert.ok(lazy.putString('abc') === 3 && made === 1);
});

test('a lazy core read first for a name the core lacks (then) answers undefined, once', async () => {
  const lazy = lazyCore(loadCore);
  assert.equal(lazy.then, undefined);
  assert.equal(await Promise.resolve(lazy), lazy, 'not taken for a thenable');
  assert.equal(Object.getOwnPropertyDescriptor(lazy, 'u32').writable, true);
  assert.equal(lazy.u32, loadCore().u32);
});

test('the suites run on the core build that PERFSHIM_WASM names', () => {
  const names = WebAssembly.Module.customSections(loadCore().module, 'name').length;
  if (process.env.PERFSHIM_WASM) assert.ok(names > 0, 'the debug build carries a name section');
  else assert.equal(names, 0, 'the release build carries none');
});

test('the Measure Memory suites run on the core build that PERFSHIM_MEMORY_WASM names', () => {
  const names = WebAssembly.Module.customSections(loadMemoryCore().module, 'name').length;
  if (process.env.PERFSHIM_MEMORY_WASM)
    assert.ok(names > 0, 'the debug build carries a name section');
  else assert.equal(names, 0, 'the release build carries none');
});
