// perfshim/field: profileVisits() profiles a sample of real page views and sends each one's slow
// work to a collector (`perfshim collect`, glue/field/collector.js).
//
// - The view is sampled once, from `sampleRate`. An unsampled view does nothing else: nothing is
//   imported (the Profiler and the field core are loaded by import() only once sampled), no
//   listener, no observer.
// - A sampled view is profiled in windows: the page load (until `load` plus one window), then
//   windows of `windowMs`. A window ends early once slow work has been seen in it (a long task,
//   a slow event, a long animation frame where the engine reports them), and is kept only when
//   it holds slow work: an observed entry, or a run of busy samples of `slowMs` (engines without
//   those entry types). At most `maxWindows` windows per upload.
// - After each kept window the upload is made ready: the windows' samples in one trace of the
//   field core, their marks and measures, the labels, encoded by the core (glue/field/core.js)
//   and gzipped with CompressionStream where there is one; downsampled (every 2nd, 4th...
//   sample) until it fits `maxBytes`, never dropped. At pagehide or when the page is hidden, it
//   is sent synchronously with navigator.sendBeacon as text/plain (a CORS-safelisted request:
//   no preflight), else fetch(..., {keepalive: true}); a failed beacon is counted.
// - Labels: the page's, the automatic ones (autoLabels()), and `source`: the Profiler source
//   that sampled the view (native, inspector or instrumented).
// - Nothing here throws into the page: every failure is counted in `stats.errors`.
const DEFAULTS = {
  sampleRate: 0.01,
  sampleInterval: 10,
  maxBufferSize: 10000,
  windowMs: 5000,
  slowMs: 50,
  maxWindows: 8,
  maxBytes: 65000,
  labels: {},
};
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
const SLOW_TYPES = ['longtask', 'event', 'long-animation-frame'];
/** The `source` label of each Profiler source (profiler.js's defaultSources()). */
const SOURCE_LABELS = {
  'chromium-native': 'native',
  'node-inspector': 'inspector',
  'inspector-async': 'inspector',
  instrument: 'instrumented',
};

/** `s` cut to at most 256 UTF-8 bytes (the collector's cap on a label value). */
function clip(s) {
  let v = String(s).slice(0, 256);
  const enc = new TextEncoder();
  while (enc.encode(v).length > 256) v = v.slice(0, -1);
  return v;
}

/** The automatic labels: route (path, no query), engine, device class. */
export function autoLabels(g = globalThis) {
  const nav = g.navigator || {};
  const ua = String(nav.userAgent || '');
  const engine = /Firefox\//.test(ua)
    ? 'firefox'
    : /Chrom(e|ium)\//.test(ua)
      ? 'chromium'
      : /AppleWebKit\//.test(ua)
        ? 'webkit'
        : 'other';
  const cores = nav.hardwareConcurrency,
    mem = nav.deviceMemory;
  const device =
    cores === undefined && mem === undefined
      ? 'unknown'
      : (mem && mem <= 2) || (cores && cores <= 2)
        ? 'low'
        : (mem && mem <= 4) || (cores && cores <= 4)
          ? 'mid'
          : 'high';
  const labels = { engine, device };
  if (g.location) labels.route = clip(g.location.pathname);
  return labels;
}

/** gzip `bytes` with CompressionStream where present, else the bytes themselves. */
async function gzip(bytes) {
  if (typeof CompressionStream !== 'function') return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Whether `trace` has a run of consecutive busy samples spanning at least `ms`. */
function busyRun(trace, ms, interval) {
  let start = -1;
  for (const s of trace.samples) {
    if (s.stackId === undefined) start = -1;
    else if (start < 0) start = s.timestamp;
    else if (s.timestamp - start + interval >= ms) return true;
  }
  return false;
}

/**
 * Profile this page view if it is sampled. Options: `endpoint` (the collector's URL, required),
 * `sampleRate` (0-1, default 0.01), `labels` ({name: value}: release, ...), `sampleInterval`
 * (ms), `maxBufferSize` (samples per window), `windowMs`, `slowMs`, `maxWindows`, `maxBytes`
 * (the upload's bytes, under the beacon's 64 KB), `random` (a () => [0, 1) for the decision).
 * Returns {stats, flush(), stop()}: `stats` counts windows, kept windows, uploads, beacon
 * failures, errors, the last upload's bytes and stride, and the main-thread ms spent encoding;
 * flush() ends the current window and sends what is ready; stop() ends profiling.
 */
export function profileVisits(options = {}) {
  const stats = {
    sampled: false,
    windows: 0,
    kept: 0,
    uploads: 0,
    beaconFailures: 0,
    errors: 0,
    bytes: 0,
    stride: 1,
    encodeMs: 0,
  };
  const control = { stats, flush: async () => {}, stop() {} };
  try {
    const o = { ...DEFAULTS, ...options };
    const random = typeof o.random === 'function' ? o.random : Math.random;
    if (!o.endpoint || !(random() < o.sampleRate)) return control;
    stats.sampled = true;
    Object.assign(control, sampled(o, stats));
  } catch {
    stats.errors++;
  }
  return control;
}

function sampled(o, stats) {
  const g = globalThis;
  const labels = { ...autoLabels() };
  for (const [k, v] of Object.entries(o.labels || {}))
    if (LABEL_NAME.test(k)) labels[k] = clip(v);
    else stats.errors++;
  let field, visit, Profiler;
  let ready = null; // the upload to send
  let kept = []; // [start, end] of the windows in the visit
  let stopped = false;
  let endWindow = null; // ends the current window early
  const slow = []; // [start, end] of observed slow entries, bounded
  const observers = [];
  const fail = () => stats.errors++;
  let windowDone; // resolves when the current window is over and its upload prepared
  let nextWindow = new Promise((r) => {
    windowDone = r;
  });

  try {
    const supported = (g.PerformanceObserver && g.PerformanceObserver.supportedEntryTypes) || [];
    for (const type of SLOW_TYPES) {
      if (!supported.includes(type)) continue;
      const ob = new g.PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (type === 'event' && e.duration < o.slowMs) continue;
          if (slow.length >= 64) slow.shift();
          slow.push([e.startTime, e.startTime + e.duration]);
          // End the window shortly after slow work, so its upload is ready soon.
          if (endWindow) setTimeout(endWindow, 100);
        }
      });
      ob.observe(
        type === 'event'
          ? { type, durationThreshold: 16, buffered: true }
          : { type, buffered: true },
      );
      observers.push(ob);
    }
  } catch {
    fail();
  }

  function send() {
    try {
      if (!ready) return;
      const body = ready;
      ready = null;
      kept = [];
      const blob = new Blob([body], { type: 'text/plain' });
      let ok = false;
      try {
        ok = !!(g.navigator && g.navigator.sendBeacon && g.navigator.sendBeacon(o.endpoint, blob));
      } catch {
        ok = false;
      }
      if (!ok) {
        stats.beaconFailures++;
        if (typeof g.fetch === 'function')
          g.fetch(o.endpoint, {
            method: 'POST',
            body: blob,
            keepalive: true,
            mode: 'no-cors',
          }).catch(fail);
      }
      stats.uploads++;
      // The next upload starts afresh.
      if (visit) field.free(visit);
      visit = field.trace(o.maxBufferSize * o.maxWindows);
    } catch {
      fail();
    }
  }
  const onHide = () => {
    if (g.document && g.document.visibilityState === 'hidden') send();
  };
  g.addEventListener('pagehide', send);
  g.addEventListener('visibilitychange', onHide);

  /** Encode the visit (downsampled until it fits) and gzip it: the next upload. */
  async function prepare() {
    const entries = [];
    for (const type of ['mark', 'measure'])
      for (const e of g.performance.getEntriesByType(type))
        if (kept.some(([a, b]) => e.startTime >= a && e.startTime <= b) && entries.length < 1000)
          entries.push(e);
    for (let stride = 1; ; stride *= 2) {
      const t0 = g.performance.now();
      const bytes = field.encode(visit, { entries, labels, interval: o.sampleInterval, stride });
      stats.encodeMs += g.performance.now() - t0;
      const body = await gzip(bytes);
      const samples = field.codec.info(visit).samples;
      if (body.length <= o.maxBytes || stride >= samples) {
        ready = body;
        stats.bytes = body.length;
        stats.stride = stride;
        return;
      }
    }
  }

  async function run() {
    const m = await import('./sampled.js');
    field = m.createField();
    // The Profiler over this runtime's sources, each noting when it is the one that started:
    // the upload's `source` label (native, inspector or instrumented).
    const sources = m.defaultSources().map((s) => ({
      ...s,
      available: s.available && (() => s.available()),
      start(...args) {
        const sampler = s.start(...args);
        labels.source = SOURCE_LABELS[s.name] || s.name;
        return sampler;
      },
    }));
    Profiler = m.createProfilerClass(undefined, { source: sources });
    visit = field.trace(o.maxBufferSize * o.maxWindows);
    let first = true;
    while (!stopped) {
      const p = new Profiler({ sampleInterval: o.sampleInterval, maxBufferSize: o.maxBufferSize });
      const start = g.performance.now();
      await new Promise((resolve) => {
        endWindow = resolve;
        const loaded = () => setTimeout(resolve, o.windowMs);
        if (first && g.document && g.document.readyState !== 'complete')
          g.addEventListener('load', loaded, { once: true });
        else setTimeout(resolve, o.windowMs);
      });
      endWindow = null;
      first = false;
      const trace = await p.stop();
      const end = g.performance.now();
      stats.windows++;
      const seen = slow.some(([a, b]) => b >= start && a <= end);
      if ((seen || busyRun(trace, o.slowMs, o.sampleInterval)) && kept.length < o.maxWindows) {
        const all = Number.POSITIVE_INFINITY;
        field.codec.importTrace(visit, trace, all, -all, 'perfshim field', true);
        kept.push([start, end]);
        stats.kept++;
        await prepare();
      }
      const done = windowDone;
      nextWindow = new Promise((r) => {
        windowDone = r;
      });
      done();
    }
  }
  const running = run()
    .catch(fail)
    .finally(() => windowDone());

  return {
    /** End the current window, then send what is ready. */
    flush: async () => {
      try {
        const done = nextWindow;
        if (endWindow) endWindow();
        await done;
        send();
      } catch {
        fail();
      }
    },
    stop() {
      stopped = true;
      if (endWindow) endWindow();
      for (const ob of observers) ob.disconnect();
      g.removeEventListener('pagehide', send);
      g.removeEventListener('visibilitychange', onHide);
      return running;
    },
  };
}
