// Measure Memory source for Deno: an intermediate measurement (src/memory.h) of the thread it
// runs in, after a full garbage collection (HeapProfiler.collectGarbage through node:inspector,
// whose session reaches the thread it is created on), from V8's heap space statistics
// (node:v8) and Deno.memoryUsage(). Entries (types): ["JavaScript", <V8 space>] per non-empty
// space; ["External"] = V8's external bytes, ArrayBuffers included (Deno reports no
// arrayBuffers figure); ["WebAssembly"] = the perfshim core's memory, which Deno counts nowhere
// else (measured with Deno 2.9.6: a 64 MB memory leaves `external` as it was), nor other
// modules' memories. Workers: Deno offers no way to reach another thread's heap (its inspector
// has no NodeWorker domain), so a call measures the thread it runs in; in a worker, that worker.
// Without node:inspector the figures are read without the GC.
import { domException, failed } from '../host/errors.js';
import { entriesOf, ownRealm } from './measure-memory-bun.js';

async function collectGarbage() {
  const inspector = await import('node:inspector').catch(() => null);
  if (typeof inspector?.Session !== 'function') return;
  const session = new inspector.Session();
  session.connect();
  // Deno does not count a pending inspector answer as work: a timer keeps the process alive.
  const keep = setTimeout(() => {}, 0x7fffffff);
  try {
    await new Promise((resolve, reject) =>
      session.post('HeapProfiler.collectGarbage', {}, (e) => (e ? reject(e) : resolve())),
    );
  } finally {
    clearTimeout(keep);
    session.disconnect();
  }
}

export async function measureDeno(core) {
  let v8;
  try {
    v8 = await import('node:v8');
    await collectGarbage();
  } catch (e) {
    throw domException(
      'NotSupportedError',
      `${failed('measureUserAgentSpecificMemory', 'Performance')}: this Deno offers no V8 heap statistics (${e?.message}).`,
    );
  }
  const spaces = v8
    .getHeapSpaceStatistics()
    .map((s) => [s.space_used_size, 'JavaScript', s.space_name]);
  const wasm = core?.memory ? core.memory.buffer.byteLength : 0;
  return {
    realms: [ownRealm(String(globalThis.Deno.mainModule ?? ''), 'DenoMainThread')],
    entries: entriesOf([
      ...spaces,
      [globalThis.Deno.memoryUsage().external, 'External'],
      [wasm, 'WebAssembly'],
    ]),
  };
}
