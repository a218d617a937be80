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
// ["External"] = external − ArrayBuffer − WebAssembly: V8 counts WebAssembly memories in
// external memory (not in arrayBuffers), so the memories of other modules are in "External".
// (Runtime.queryObjects could list every WebAssembly.Memory, but it runs several GCs and a
// marking pass: 600 ms against 120 ms for one GC on a heap of 1M small objects.)
// Realms: the main thread {url: file URL of process.argv[1], scope: "NodeMainThread"}; each
// worker {url: its script URL ("" for eval workers), scope: "DedicatedWorkerGlobalScope"}.
// The NodeWorker domain lists workers started by workers too, without saying by which one;
// all are given the main thread as owner, which changes nothing in the result (in Node no
// realm has a container, so every worker inherits an empty token). Called inside a worker,
// the measurement covers that worker only (Node 20's worker inspector has no NodeWorker
// domain); its url is require.main's file for CommonJS workers, else "".
// Without node:inspector (Node built without it), only this thread is measured, without the GC.

import { domException, failed } from '../host/errors.js';

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

/** The protocol calls that measure a thread: one full GC, then the probe (its figures by value).
 *  A worker is sent both at once: its session runs them in order. */
const STEPS = [
  ['HeapProfiler.collectGarbage', {}],
  [
    'Runtime.evaluate',
    { expression: PROBE, includeCommandLineAPI: true, returnByValue: true, silent: true },
  ],
];

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

/** A worker's figures: the steps relayed by the parent session (NodeWorker domain), the answer
 *  to the last awaited. A worker blocked in native code cannot answer: it is not waited for
 *  longer than `ms` (the timer is unref'd, so it never keeps the process alive). */
function measureWorker(waiting, post, sessionId, ms) {
  return new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error('worker did not answer in time')), ms).unref();
    waiting.set(sessionId, {
      message(msg) {
        if (msg.error) reject(new Error(`${msg.error.message} (${msg.error.code})`));
        else if (msg.id === STEPS.length) resolve(msg.result); // earlier ids and notifications: no
      },
      detached: () => reject(new Error('worker exited during the measurement')),
    });
    STEPS.forEach(([method, params], i) => {
      const message = JSON.stringify({ id: i + 1, method, params });
      post('NodeWorker.sendMessageToWorker', { sessionId, message }).catch(reject);
    });
  }).then(probeResult);
}

/** Entries of one realm from its probe and the bytes of the WebAssembly memory it holds. */
function realmEntries(realm, p, wasmBytes = 0) {
  const parts = [
    ...p.spaces.map(([space, used]) => [used, 'JavaScript', space]),
    [p.arrayBuffers, 'ArrayBuffer'],
    [wasmBytes, 'WebAssembly'],
    [p.external - p.arrayBuffers - wasmBytes, 'External'],
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
  const wasm = core && core.memory ? core.memory.buffer.byteLength : 0;
  return { realms: [{ url, scope }], entries: realmEntries(0, p, wasm) };
}

/** Without an inspector: this thread only, read directly (a runtime that has neither, e.g. a
 *  Node look-alike, gets a NotSupportedError). */
async function measureDirect(core) {
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
  return ownRealm(core, p);
}

/** The intermediate measurement of this thread and (from the main thread) its workers.
 *  Options: workerTimeoutMs (default WORKER_TIMEOUT_MS); inspector: false takes the path of a
 *  Node without node:inspector. */
export async function measureNode(
  core,
  { workerTimeoutMs = WORKER_TIMEOUT_MS, inspector: useInspector = true } = {},
) {
  const inspector = useInspector ? await import('node:inspector').catch(() => null) : null;
  if (!inspector || typeof inspector.Session !== 'function') return measureDirect(core);
  const session = new inspector.Session();
  try {
    session.connect();
  } catch {
    return measureDirect(core);
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
      // One step after the other here: sent together, this thread's figures came out a few
      // hundred ArrayBuffer bytes high (memory-growth and memory-shape tests).
      for (const step of STEPS) self = await post(...step);
      self = probeResult(self);
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
