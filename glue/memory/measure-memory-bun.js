// Measure Memory source for Bun: an intermediate measurement (src/memory.h) of the thread it runs
// in, after a full garbage collection (Bun.gc(true)), from process.memoryUsage(), whose figures
// are JavaScriptCore's: heapUsed is the heap's size, which includes `external` (the memory
// outside the heap that JavaScriptCore accounts to its objects: ArrayBuffer and typed-array
// stores, WebAssembly memories, string buffers); arrayBuffers counts ArrayBuffer objects'
// bytes, WebAssembly memories included. Entries (types): ["JavaScript"] = heapUsed − external;
// ["ArrayBuffer"] = arrayBuffers − the perfshim core's memory; ["WebAssembly"] = the perfshim
// core's memory (other modules' memories stay in "ArrayBuffer": Bun does not tell them apart);
// ["External"] = external − arrayBuffers (typed arrays that never made an ArrayBuffer object,
// strings). JavaScriptCore's accounting is approximate: measured with Bun 1.4.4, a 64 MB
// WebAssembly memory, once written, added 128 MB to `external`.
// Workers: Bun offers no way to reach another thread's heap (its inspector has no NodeWorker
// domain), so a call measures the thread it runs in; in a worker, that worker.
import { domException, failed } from '../host/errors.js';

/** The realm of this thread: the main script's file URL, or the worker's URL. */
export function ownRealm(main, scope) {
  const isMain = globalThis.Bun ? globalThis.Bun.isMainThread : !globalThis.WorkerGlobalScope;
  if (isMain) return { url: main || '', scope };
  return { url: String(globalThis.location?.href ?? ''), scope: 'DedicatedWorkerGlobalScope' };
}

/** Entries of realm 0 from [bytes, ...types] parts; the parts of no bytes are left out. */
export const entriesOf = (parts) =>
  parts.filter(([b]) => b > 0).map(([bytes, ...types]) => ({ bytes, realms: [0], types }));

export async function measureBun(core) {
  const Bun = globalThis.Bun;
  if (typeof Bun?.gc !== 'function' || typeof process?.memoryUsage !== 'function')
    throw domException(
      'NotSupportedError',
      `${failed('measureUserAgentSpecificMemory', 'Performance')}: this Bun offers neither Bun.gc nor process.memoryUsage().`,
    );
  Bun.gc(true);
  const u = process.memoryUsage();
  const wasm = core?.memory ? core.memory.buffer.byteLength : 0;
  const main = Bun.main ? (await import('node:url')).pathToFileURL(Bun.main).href : '';
  return {
    realms: [ownRealm(main, 'BunMainThread')],
    entries: entriesOf([
      [u.heapUsed - u.external, 'JavaScript'],
      [u.arrayBuffers - wasm, 'ArrayBuffer'],
      [wasm, 'WebAssembly'],
      [u.external - u.arrayBuffers, 'External'],
    ]),
  };
}
