// Measure Memory source for browsers, in order of preference:
//   1. the native performance.measureUserAgentSpecificMemory() (Chromium, cross-origin isolated
//      contexts), captured before perfshim installs its own. It resolves after the next full
//      GC (~15 s headless, unless Chromium runs with ForceEagerMeasureMemory or the page exposes
//      gc(): see callNative). Its result goes to the core as it is ({native}: src/memory.h), which
//      re-encodes it with the tokens the browser resolved in the current draft's shape (types,
//      the zero-byte entry, shuffled orders) whatever the browser's version;
//   2. in a Window without it: performance.memory.usedJSHeapSize (Chromium's heap of this
//      page's isolate, same-process iframes included, workers not), labelled with the type
//      "performance.memory" (Chromium may quantize it unless started with
//      --enable-precise-memory-info), plus our core's WebAssembly memory, exact;
//   3. nothing honest: NotSupportedError saying what would enable a measurement.
// The spec's "memory measurement allowed predicate" comes first: a Window whose origin is not
// the top-level origin, or a dedicated worker, gets a SecurityError.
import { domException, failed } from '../host/errors.js';
import { isWindow } from '../host/host.js';
import { nativeHome, nativeMeasure } from '../host/native.js';

const OP = 'measureUserAgentSpecificMemory';
const g = globalThis;
/** performance.memory's getter (an accessor's get is a function or undefined). */
const memoryGetter = nativeHome && Object.getOwnPropertyDescriptor(nativeHome, 'memory')?.get;

// A gc() the page exposed (--js-flags=--expose-gc): Chromium's native call resolves after the
// next full GC, which it otherwise schedules seconds later; collecting every 50 ms until the
// promise settles brings the wait from ~15 s (headless) to ~100 ms.
const exposedGC = typeof g.gc === 'function' ? g.gc : null;

function callNative() {
  const p = nativeMeasure.call(g.performance);
  if (exposedGC && typeof setTimeout === 'function') {
    let settled = false;
    const done = () => (settled = true);
    p.then(done, done);
    const tick = () => {
      if (settled) return;
      try {
        exposedGC();
        setTimeout(tick, 50);
      } catch {} // a gc() that throws ends the collecting
    };
    setTimeout(tick, 0);
  }
  return p;
}

const ENABLE =
  "serve the page with 'Cross-Origin-Opener-Policy: same-origin' and " +
  "'Cross-Origin-Embedder-Policy: require-corp' (crossOriginIsolated), in a browser that " +
  'implements measureUserAgentSpecificMemory (Chromium 89 or later)';

/** Whether this global is a shared or a service worker's (a Window is host.js's isWindow). */
const isSharedOrServiceWorker = ['SharedWorkerGlobalScope', 'ServiceWorkerGlobalScope'].some(
  (n) => typeof g[n] === 'function' && g instanceof g[n],
);

/** Memory measurement allowed predicate (§ Top-level algorithms): a shared or service worker,
 *  or a Window whose origin is the top-level origin. */
function measurementAllowed() {
  if (isSharedOrServiceWorker) return true;
  try {
    return isWindow && (g.top === g || g.top.location.origin === g.location.origin);
  } catch {
    return false; // reading a cross-origin top's location throws
  }
}

function fallbackWindow(core) {
  const heap = memoryGetter.call(g.performance).usedJSHeapSize;
  const token = { container: null, crossOriginAggregated: false };
  const realms = [{ url: String(g.location.href), scope: 'Window', token }];
  const entries = [{ bytes: heap, realms: [0], types: ['JavaScript', 'performance.memory'] }];
  if (core && core.memory)
    entries.push({ bytes: core.memory.buffer.byteLength, realms: [0], types: ['WebAssembly'] });
  return { realms, entries };
}

/** The intermediate measurement for this browser context, or a rejection with the reason. */
export async function measureBrowser(core) {
  const ctx = failed(OP, 'Performance');
  if (!measurementAllowed()) {
    throw domException(
      'SecurityError',
      `${ctx}: ${
        isWindow
          ? 'memory can only be measured by a document of the top-level origin'
          : 'memory can only be measured in a Window, a SharedWorker or a ServiceWorker'
      }.`,
    );
  }
  if (nativeMeasure && g.crossOriginIsolated === true) return { native: await callNative() };
  if (isWindow && memoryGetter) return fallbackWindow(core);
  throw domException(
    'NotSupportedError',
    `${ctx}: no honest memory measurement is available in ` +
      `this context; to enable one, ${ENABLE}.`,
  );
}
