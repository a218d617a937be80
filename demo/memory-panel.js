// The memory panel: measureUserAgentSpecificMemory() over this page, a same-origin iframe and a
// dedicated worker, drawn as two bar charts (by attribution, by type).
import { escapeHtml } from './profiler-panel.js';

const $ = (id) => document.getElementById(id);
const MB = 1024 * 1024;
const fmtBytes = (b) => (b >= MB ? `${(b / MB).toFixed(1)} MB` : `${(b / 1024).toFixed(0)} KB`);

/** A readable label for one attribution: which realm, and through which container. */
function labelOf(a) {
  const path = (() => {
    try {
      return new URL(a.url).pathname;
    } catch {
      return a.url || '';
    }
  })();
  if (a.scope === 'cross-origin-aggregated') return 'cross-origin (aggregated)';
  const file = path.split('/').pop() || path;
  if (a.container) return `iframe #${a.container.id || '?'} — ${file}`;
  if (a.scope === 'DedicatedWorkerGlobalScope') return `dedicated worker — ${file}`;
  if (a.scope === 'Window') return `this page — ${path}`;
  return `${a.scope || 'realm'} — ${path}`;
}

/** Sum the breakdown by attribution (an entry shared by several realms is split evenly) and by
 *  type. */
export function summarize(measurement) {
  const byAttribution = new Map(),
    byType = new Map();
  const add = (m, k, b) => m.set(k, (m.get(k) || 0) + b);
  for (const e of measurement.breakdown) {
    if (!e.bytes) continue;
    if (e.attribution.length === 0) add(byAttribution, 'shared / not attributed', e.bytes);
    for (const a of e.attribution) add(byAttribution, labelOf(a), e.bytes / e.attribution.length);
    if (e.types.length === 0) add(byType, '(no type)', e.bytes);
    else add(byType, e.types.join(' + '), e.bytes);
  }
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
  return { byAttribution: sorted(byAttribution), byType: sorted(byType) };
}

function bars(host, rows, total) {
  host.textContent = '';
  const max = Math.max(1, ...rows.map((r) => r[1]));
  for (const [label, bytes] of rows) {
    const row = document.createElement('div');
    row.className = 'bar-row';
    row.dataset.label = label;
    row.innerHTML =
      `<span class="bar-label" title="${escapeHtml(label)}">${escapeHtml(label)}</span>` +
      `<span class="bar-track"><span class="bar-fill" style="width:${((100 * bytes) / max).toFixed(1)}%"></span></span>` +
      `<span class="bar-value">${fmtBytes(bytes)} <small>${((100 * bytes) / total).toFixed(0)}%</small></span>`;
    host.append(row);
  }
}

export function setupMemoryPanel({ perf, nativeMemory }) {
  const status = $('mem-status');
  const btn = $('btn-memory');
  const badge = $('memory-source');
  const setStatus = (html, kind = '') => {
    status.innerHTML = html;
    status.className = `status ${kind}`;
  };

  // The companions: a same-origin iframe (in the markup) and a dedicated worker.
  const worker = new Worker('worker.js');
  const workerReady = new Promise((resolve) => {
    worker.onmessage = (ev) => {
      $('worker-state').textContent = `worker: ${fmtBytes(ev.data.bytes)} held`;
      resolve();
    };
  });
  window.__demoWorker = worker;

  // The native call exists only in Chromium, and only when cross-origin isolated.
  const native = nativeMemory && globalThis.crossOriginIsolated;
  const guess = native
    ? ['native', 'native measureUserAgentSpecificMemory (cross-origin isolated), re-encoded']
    : 'memory' in performance
      ? ['fallback', 'fallback: performance.memory (not cross-origin isolated)']
      : ['unavailable', 'no honest source (rejects)'];
  badge.textContent = guess[1];
  badge.className = `badge ${guess[0]}`;
  setStatus(
    'Press <b>measure memory</b>.' +
      (native ? ' Chromium answers after its next garbage collection: up to ~20 s.' : ''),
  );

  btn.onclick = async () => {
    btn.disabled = true;
    await workerReady;
    const t0 = performance.now();
    const tick = () =>
      setStatus(
        `<span class="spinner"></span>measuring… ${((performance.now() - t0) / 1000).toFixed(1)} s` +
          (native
            ? ' — Chromium resolves the native call after its next garbage collection (10–20 s in a quiet page).'
            : ''),
        'busy',
      );
    tick();
    const timer = setInterval(tick, 200);
    try {
      const m = await perf.measureUserAgentSpecificMemory();
      clearInterval(timer);
      const ms = performance.now() - t0;
      const fallback = m.breakdown.some((e) => e.types.includes('performance.memory'));
      badge.textContent = fallback
        ? 'fallback: performance.memory'
        : 'native (cross-origin isolated), re-encoded';
      badge.className = `badge ${fallback ? 'fallback' : 'native'}`;
      const s = summarize(m);
      bars($('mem-by-attribution'), s.byAttribution, m.bytes);
      bars($('mem-by-type'), s.byType, m.bytes);
      setStatus(
        `<b>${fmtBytes(m.bytes)}</b> in ${m.breakdown.length} breakdown entries, measured in ${(ms / 1000).toFixed(2)} s` +
          (fallback
            ? " — only this page's heap (performance.memory): the iframe is in it, the worker is not; serve with COOP/COEP for the native measurement."
            : '.'),
        fallback ? 'warn' : 'ok',
      );
      status.dataset.done = fallback ? 'fallback' : 'native';
    } catch (e) {
      clearInterval(timer);
      badge.textContent = `rejects with ${e.name}`;
      badge.className = 'badge unavailable';
      setStatus(
        `<b>measureUserAgentSpecificMemory() rejected with ${escapeHtml(e.name)}</b>: ${escapeHtml(e.message)}`,
        'error',
      );
      status.dataset.done = 'rejected';
    }
    btn.disabled = false;
  };
}
