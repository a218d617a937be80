// Measure Memory source for Node: an intermediate measurement (see src/memory.h) of this thread
// and, from the main thread, of every live worker_threads worker.
//
// How it measures, per thread (realm):
//   - an in-process node:inspector session (Session#connect) reaches this thread's isolate;
//     from the main thread, the NodeWorker domain lists the live workers (with their script URL)
//     and relays protocol messages to each one, which answers even while busy (V8 interrupt);
//   - HeapProfiler.collectGarbage runs one full GC in that isolate, so the figures read next are
//     live sizes (Chromium's native API also measures after a GC);
//   - then one probe evaluated in the thread: v8.getHeapSpaceStatistics() (used bytes per
//     space) and process.memoryUsage() (external and ArrayBuffer bytes of that isolate).
// Entries per realm (types): ["JavaScript", <V8 space>] per non-empty heap space;
// ["ArrayBuffer"]; ["WebAssembly"] = the perfshim core's memory, in the thread that measures;
// ["External"] = external − ArrayBuffer − WebAssembly + the other modules' WebAssembly memories.
// Up to Node 24, V8 counts WebAssembly memories in external memory (not in arrayBuffers), so
// they are in `external` already. Node 26's V8 no longer does (a 64 KiB memory made once shows
// which: countsWasmInExternal): there each thread's memories are listed with
// Runtime.queryObjects and their bytes added, in place of the GC step (queryObjects collects
// all garbage first; it costs more than one GC: 600 ms against 120 ms on a heap of 1M small
// objects, which is why older Node does not use it).
// Realms: the main thread {url: file URL of process.argv[1], scope: "NodeMainThread"}; each
// worker {url: its script URL ("" for eval workers), scope: "DedicatedWorkerGlobalScope"}.
// The NodeWorker domain lists workers started by workers too, without saying by which one;
// all are given the main thread as owner, which changes nothing in the result (in Node no
// realm has a container, so every worker inherits an empty token). Called inside a worker,
// the measurement covers that worker only (Node 20's worker inspector has no NodeWorker
// domain); its url is require.main's file for CommonJS workers, else "".
// Without node:inspector (Node built without it, or a session that cannot connect), this thread
// is measured without the GC and, on Node >= 22.16, the workers started since this module loaded
// (process 'worker' events) through worker.getHeapStatistics(): ["JavaScript"] = used heap,
// ["External"] = external memory, without a GC or a per-space breakdown, url "" (a Worker does
// not say its script); older Node measures no worker there.

import { domException, failed } from '../host/errors.js';
import { runtime } from '../host/host.js';

/** The figures of the thread it runs in, from its own v8 and worker_threads modules; run there
 *  through Runtime.evaluate as `(${probeThread})(require('v8'), require('worker_threads'), ...)`. */
const probeThread = (v8, wt, main) => {
  const u = process.memoryUsage();
  return {
    spaces: v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]),
    external: u.external,
    arrayBuffers: u.arrayBuffers,
    isMainThread: wt.isMainThread,
    main: wt.isMainThread ? process.argv[1] || '' : main,
  };
};
const PROBE = `(${probeThread})(require('v8'), require('worker_threads'),
  (require.main && require.main.filename) || '')`;

const PROBE_STEP = [
  'Runtime.evaluate',
  { expression: PROBE, includeCommandLineAPI: true, returnByValue: true, silent: true },
];
const GROUP = 'perfshim-measure-memory';

let wasmInExternal;
/** Whether this V8 counts WebAssembly memories in external memory (up to Node 24; not Node 26's
 *  V8): a 64 KiB memory is made once and `external` read around it. The same V8 runs every
 *  thread, so the answer holds for the workers too. */
function countsWasmInExternal() {
  if (wasmInExternal === undefined) {
    const before = process.memoryUsage().external;
    const probe = new WebAssembly.Memory({ initial: 1 });
    wasmInExternal = process.memoryUsage().external - before >= probe.buffer.byteLength;
  }
  return wasmInExternal;
}

/** One thread's figures through `post` (its session): one full GC, then the probe; where V8 does
 *  not count WebAssembly memories in `external`, their bytes (p.wasm) from Runtime.queryObjects
 *  (which collects all garbage first) instead of the GC. One step after the other: sent
 *  together, the main thread's figures came out a few hundred ArrayBuffer bytes high
 *  (memory-growth and memory-shape tests). */
async function measureThread(post) {
  if (countsWasmInExternal()) {
    await post('HeapProfiler.collectGarbage', {});
    return probeResult(await post(...PROBE_STEP));
  }
  try {
    const expression = 'WebAssembly.Memory.prototype';
    const proto = await post('Runtime.evaluate', { expression, objectGroup: GROUP, silent: true });
    const { objects } = await post('Runtime.queryObjects', {
      prototypeObjectId: proto.result.objectId,
      objectGroup: GROUP,
    });
    const sum = await post('Runtime.callFunctionOn', {
      objectId: objects.objectId,
      functionDeclaration:
        'function () { return this.reduce((n, m) => n + m.buffer.byteLength, 0); }',
      returnByValue: true,
      silent: true,
    });
    return { ...probeResult(await post(...PROBE_STEP)), wasm: probeResult(sum) };
  } finally {
    await post('Runtime.releaseObjectGroup', { objectGroup: GROUP }).catch(() => {});
  }
}

/** A worker that does not answer is not waited for longer than this (see measureWorker). */
const WORKER_TIMEOUT_MS = 5000;

/** The probe's figures from the last step's result. */
function probeResult(r) {
  if (r.exceptionDetails) throw new Error(`memory probe failed: ${r.exceptionDetails.text}`);
  return r.result.value;
}

/** The handlers of the workers being measured, by session id, behind one listener per event
 *  (a listener per worker passed the session's limit of 10 and printed a
 *  MaxListenersExceededWarning on every call from the 11th worker). */
function workerRelay(session) {
  const waiting = new Map(); // sessionId -> { message(msg), detached() }
  session.on('NodeWorker.receivedMessageFromWorker', ({ params: p }) => {
    const w = waiting.get(p.sessionId);
    if (w) w.message(JSON.parse(p.message));
  });
  session.on('NodeWorker.detachedFromWorker', ({ params: p }) => {
    const w = waiting.get(p.sessionId);
    if (w) w.detached();
  });
  return waiting;
}

/** A worker's figures: measureThread's steps relayed by the parent session (NodeWorker domain),
 *  each answered by id. A worker blocked in native code cannot answer: it is not waited for
 *  longer than `ms` in all (the timer is unref'd, so it never keeps the process alive). */
function measureWorker(waiting, post, sessionId, ms) {
  let id = 0;
  let failure = null; // once set, every call fails with it
  const pending = new Map(); // message id -> { resolve, reject }
  const fail = (e) => {
    failure = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  const timer = setTimeout(() => fail(new Error('worker did not answer in time')), ms);
  timer.unref();
  waiting.set(sessionId, {
    message(msg) {
      const p = pending.get(msg.id); // (notifications have no id)
      if (!p) return;
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${msg.error.message} (${msg.error.code})`));
      else p.resolve(msg.result);
    },
    detached: () => fail(new Error('worker exited during the measurement')),
  });
  const relay = (method, params) =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      const message = JSON.stringify({ id: ++id, method, params });
      pending.set(id, { resolve, reject });
      post('NodeWorker.sendMessageToWorker', { sessionId, message }).catch(reject);
    });
  return measureThread(relay).finally(() => {
    clearTimeout(timer);
    waiting.delete(sessionId);
  });
}

/** Entries of one realm from its probe and the bytes of perfshim's WebAssembly memory in it
 *  (`own`). p.wasm, where measured, is the bytes of every WebAssembly memory of the realm, which
 *  `external` does not count (see countsWasmInExternal). */
function realmEntries(realm, p, own = 0) {
  const otherWasm = p.wasm === undefined ? -own : p.wasm - own;
  const parts = [
    ...p.spaces.map(([space, used]) => [used, 'JavaScript', space]),
    [p.arrayBuffers, 'ArrayBuffer'],
    [own, 'WebAssembly'],
    [p.external - p.arrayBuffers + otherWasm, 'External'],
  ];
  return parts
    .filter(([bytes]) => bytes > 0)
    .map(([bytes, ...types]) => ({ bytes, realms: [realm], types }));
}

/** This thread's measurement: its realm (main script as a file: URL) and entries (realm 0). */
async function ownRealm(core, p) {
  // p.main is a path (Node makes process.argv[1] absolute) or "" (eval, REPL)
  const url = p.main && (await import('node:url')).pathToFileURL(p.main).href;
  const scope = p.isMainThread ? 'NodeMainThread' : 'DedicatedWorkerGlobalScope';
  return { realms: [{ url, scope }], entries: realmEntries(0, p, ownWasm(core)) };
}

/** The bytes of perfshim's own WebAssembly memory (the core's) in this thread. */
const ownWasm = (core) => (core && core.memory ? core.memory.buffer.byteLength : 0);

/** Workers started since this module loaded, for measureDirect (Node >= 22.16: getHeapStatistics
 *  on a Worker), each until it exits. */
const tracked = new Set();
if (runtime === 'node') {
  const wt = process.getBuiltinModule?.('node:worker_threads');
  if (typeof wt?.Worker?.prototype?.getHeapStatistics === 'function')
    process.on('worker', (w) => {
      tracked.add(w);
      w.once('exit', () => tracked.delete(w));
    });
}

/** `promise`, or null if it rejects or takes longer than `ms` (an unref'd timer). */
const orNull = (promise, ms) =>
  new Promise((resolve) => {
    setTimeout(() => resolve(null), ms).unref();
    promise.then(resolve, () => resolve(null));
  });

/** Without an inspector: this thread, read directly, and the tracked workers' heap statistics (a
 *  runtime that has neither, e.g. a Node look-alike, gets a NotSupportedError). */
async function measureDirect(core, workerTimeoutMs) {
  let p;
  try {
    const [v8, wt] = await Promise.all([import('node:v8'), import('node:worker_threads')]);
    p = probeThread(v8, wt, '');
  } catch (e) {
    throw domException(
      'NotSupportedError',
      `${failed('measureUserAgentSpecificMemory', 'Performance')}: ` +
        `this runtime offers neither node:inspector nor V8 heap statistics (${e && e.message}).`,
    );
  }
  const own = ownWasm(core);
  if (!countsWasmInExternal()) p.wasm = own; // (other modules' memories cannot be listed here)
  const stats = [...tracked].map((w) => orNull(w.getHeapStatistics(), workerTimeoutMs));
  const { realms, entries } = await ownRealm(core, p);
  for (const s of await Promise.all(stats)) {
    if (!s) continue; // exited meanwhile, or blocked past the timeout (as measureNode's)
    for (const [bytes, type] of [
      [s.used_heap_size, 'JavaScript'],
      [s.external_memory, 'External'],
    ])
      if (bytes > 0) entries.push({ bytes, realms: [realms.length], types: [type] });
    realms.push({ url: '', scope: 'DedicatedWorkerGlobalScope', parent: 0 });
  }
  return { realms, entries };
}

/** The intermediate measurement of this thread and (from the main thread) its workers.
 *  Options: workerTimeoutMs (default WORKER_TIMEOUT_MS); inspector: false takes the path of a
 *  Node without node:inspector. */
export async function measureNode(
  core,
  { workerTimeoutMs = WORKER_TIMEOUT_MS, inspector: useInspector = true } = {},
) {
  const inspector = useInspector ? await import('node:inspector').catch(() => null) : null;
  if (!inspector || typeof inspector.Session !== 'function')
    return measureDirect(core, workerTimeoutMs);
  const session = new inspector.Session();
  try {
    session.connect();
  } catch {
    return measureDirect(core, workerTimeoutMs);
  }
  const post = (method, params) =>
    new Promise((resolve, reject) => {
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res)));
    });
  try {
    // Workers first: their measurements (each a GC in its own thread) then run while this
    // thread measures itself.
    let workers = [];
    const { isMainThread } = await import('node:worker_threads');
    if (isMainThread) {
      const attached = [];
      session.on('NodeWorker.attachedToWorker', ({ params }) => attached.push(params));
      await post('NodeWorker.enable', { waitForDebuggerOnStart: false });
      const waiting = workerRelay(session);
      workers = attached.map(({ sessionId, workerInfo }) =>
        measureWorker(waiting, post, sessionId, workerTimeoutMs).then(
          (p) => ({ url: workerInfo.url, p }),
          // The worker exited meanwhile (its memory is gone) or is blocked outside JavaScript
          // (a synchronous native call) past the timeout: it is left out, as Chromium leaves
          // out workers that do not answer in time.
          () => null,
        ),
      );
    }
    let self;
    try {
      self = await measureThread(post);
    } finally {
      await Promise.all(workers); // never leave a worker session behind, even on failure
      if (isMainThread) await post('NodeWorker.disable').catch(() => {});
    }
    const { realms, entries } = await ownRealm(core, self);
    for (const r of await Promise.all(workers)) {
      if (!r) continue;
      entries.push(...realmEntries(realms.length, r.p));
      realms.push({ url: r.url || '', scope: 'DedicatedWorkerGlobalScope', parent: 0 });
    }
    return { realms, entries };
  } finally {
    session.disconnect();
  }
}
