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

import { domException, failed } from './errors.js';

const PROBE = `(() => {
  const v8 = require('v8'), wt = require('worker_threads'), u = process.memoryUsage();
  return {
    spaces: v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]),
    external: u.external, arrayBuffers: u.arrayBuffers, isMainThread: wt.isMainThread,
    main: wt.isMainThread ? process.argv[1] || '' : (require.main && require.main.filename) || '',
  };
})()`;

/** A protocol endpoint: the in-process session, or a worker reached through its parent. */
class Channel {
  constructor(post) {
    this.post = post;
    this.handlers = new Map();
  }
  on(method, fn) {
    if (!this.handlers.has(method)) this.handlers.set(method, []);
    this.handlers.get(method).push(fn);
  }
  emit(method, params) {
    for (const fn of this.handlers.get(method) || []) fn(params);
  }
}

function sessionChannel(session) {
  const ch = new Channel(
    (method, params) =>
      new Promise((resolve, reject) => {
        session.post(method, params, (err, res) => (err ? reject(err) : resolve(res)));
      }),
  );
  session.on('inspectorNotification', (msg) => ch.emit(msg.method, msg.params));
  return ch;
}

function workerChannel(parent, sessionId) {
  const pending = new Map();
  let nextId = 0;
  let gone = null;
  const ch = new Channel(
    (method, params) =>
      new Promise((resolve, reject) => {
        if (gone) {
          reject(gone);
          return;
        }
        const id = ++nextId;
        pending.set(id, { resolve, reject });
        parent
          .post('NodeWorker.sendMessageToWorker', {
            sessionId,
            message: JSON.stringify({ id, method, params }),
          })
          .catch((e) => {
            pending.delete(id);
            reject(e);
          });
      }),
  );
  parent.on('NodeWorker.receivedMessageFromWorker', (p) => {
    if (p.sessionId !== sessionId) return;
    const msg = JSON.parse(p.message);
    if (msg.id === undefined) {
      ch.emit(msg.method, msg.params);
      return;
    }
    const w = pending.get(msg.id);
    if (!w) return;
    pending.delete(msg.id);
    if (msg.error) w.reject(new Error(`${msg.error.message} (${msg.error.code})`));
    else w.resolve(msg.result);
  });
  parent.on('NodeWorker.detachedFromWorker', (p) => {
    if (p.sessionId !== sessionId) return;
    gone = new Error('worker exited during the measurement');
    for (const w of pending.values()) w.reject(gone);
    pending.clear();
  });
  return ch;
}

async function probe(ch) {
  const r = await ch.post('Runtime.evaluate', {
    expression: PROBE,
    includeCommandLineAPI: true,
    returnByValue: true,
    silent: true,
  });
  if (r.exceptionDetails) throw new Error(`memory probe failed: ${r.exceptionDetails.text}`);
  return r.result.value;
}

/** Entries of one realm from its probe and WebAssembly memory sizes. */
function realmEntries(realm, p, wasm) {
  const entries = [];
  for (const [space, used] of p.spaces) {
    if (used > 0) entries.push({ bytes: used, realms: [realm], types: ['JavaScript', space] });
  }
  const wasmBytes = wasm.reduce((a, b) => a + b, 0);
  const other = Math.max(0, p.external - p.arrayBuffers - wasmBytes);
  if (p.arrayBuffers > 0)
    entries.push({ bytes: p.arrayBuffers, realms: [realm], types: ['ArrayBuffer'] });
  if (wasmBytes > 0) entries.push({ bytes: wasmBytes, realms: [realm], types: ['WebAssembly'] });
  if (other > 0) entries.push({ bytes: other, realms: [realm], types: ['External'] });
  return entries;
}

/** A worker blocked in native code cannot answer; it is not waited for longer than this. */
const WORKER_TIMEOUT_MS = 5000;

function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error('worker did not answer in time')), ms);
    if (typeof timer.unref === 'function') timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One GC, then the probe; `wasm` lists the WebAssembly memory sizes known in that thread. */
async function measureThread(ch, wasm = []) {
  await ch.post('HeapProfiler.collectGarbage');
  return { probe: await probe(ch), wasm };
}

const ownMemory = (core) => (core && core.memory ? [core.memory.buffer.byteLength] : []);

let fileURL;
async function toFileURL(path) {
  if (!path) return '';
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) && !/^[a-z]:[\\/]/i.test(path)) return path;
  if (!fileURL) {
    const [{ pathToFileURL }, { resolve }] = await Promise.all([
      import('node:url'),
      import('node:path'),
    ]);
    fileURL = (p) => pathToFileURL(resolve(p)).href;
  }
  return fileURL(path);
}

/** Without an inspector: this thread only, read directly (a runtime that has neither, e.g. a
 *  Node look-alike, gets a NotSupportedError). */
async function measureDirect(core) {
  let p;
  try {
    const [v8, wt] = await Promise.all([import('node:v8'), import('node:worker_threads')]);
    const u = process.memoryUsage();
    p = {
      spaces: v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]),
      external: u.external,
      arrayBuffers: u.arrayBuffers,
      isMainThread: wt.isMainThread,
      main: wt.isMainThread ? process.argv[1] || '' : '',
    };
  } catch (e) {
    throw domException(
      'NotSupportedError',
      `${failed('measureUserAgentSpecificMemory', 'Performance')}: ` +
        `this runtime offers neither node:inspector nor V8 heap statistics (${e && e.message}).`,
    );
  }
  const wasm = ownMemory(core);
  const realm = {
    url: await toFileURL(p.main),
    scope: p.isMainThread ? 'NodeMainThread' : 'DedicatedWorkerGlobalScope',
  };
  return { realms: [realm], entries: realmEntries(0, p, wasm) };
}

let inspectorModule;
async function loadInspector() {
  if (inspectorModule === undefined) {
    try {
      inspectorModule = await import('node:inspector');
    } catch {
      inspectorModule = null;
    }
  }
  return inspectorModule;
}

/** The intermediate measurement of this thread and (from the main thread) its workers.
 *  Options: workerTimeoutMs (default WORKER_TIMEOUT_MS); inspector: false takes the path of a
 *  Node without node:inspector. */
export async function measureNode(
  core,
  { workerTimeoutMs = WORKER_TIMEOUT_MS, inspector: useInspector = true } = {},
) {
  const inspector = useInspector ? await loadInspector() : null;
  if (!inspector || typeof inspector.Session !== 'function') return measureDirect(core);
  const session = new inspector.Session();
  try {
    session.connect();
  } catch {
    return measureDirect(core);
  }
  try {
    const root = sessionChannel(session);
    // Workers first: their measurements (each a GC in its own thread) then run while this
    // thread measures itself.
    let workers = Promise.resolve([]);
    let listing = false;
    const { isMainThread } = await import('node:worker_threads');
    if (isMainThread) {
      const attached = [];
      root.on('NodeWorker.attachedToWorker', (p) => attached.push(p));
      await root.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
      listing = true;
      workers = Promise.all(
        attached.map(async (w) => {
          try {
            const m = await withTimeout(
              measureThread(workerChannel(root, w.sessionId)),
              workerTimeoutMs,
            );
            return { info: w.workerInfo, m };
          } catch {
            // The worker exited meanwhile (its memory is gone) or is blocked outside JavaScript
            // (a synchronous native call) past the timeout: it is left out, as Chromium leaves
            // out workers that do not answer in time.
            return null;
          }
        }),
      );
    }
    let self;
    try {
      self = await measureThread(root, ownMemory(core));
    } finally {
      await workers; // never leave a worker session behind, even when this thread failed
      if (listing) await root.post('NodeWorker.disable').catch(() => {});
    }
    const realms = [
      {
        url: await toFileURL(self.probe.main),
        scope: self.probe.isMainThread ? 'NodeMainThread' : 'DedicatedWorkerGlobalScope',
      },
    ];
    const entries = realmEntries(0, self.probe, self.wasm);
    for (const r of await workers) {
      if (!r) continue;
      const index = realms.length;
      realms.push({ url: r.info.url || '', scope: 'DedicatedWorkerGlobalScope', parent: 0 });
      entries.push(...realmEntries(index, r.m.probe, r.m.wasm));
    }
    return { realms, entries };
  } finally {
    session.disconnect();
  }
}
