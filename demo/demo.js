// The demo page: perfshim used as a user would, from the package's ES module entry.
import * as perfshim from '../dist/perfshim.mjs';
import { setupProfilerPanel } from './profiler-panel.js';
import { setupMemoryPanel } from './memory-panel.js';
import { setupExportPanel } from './export-panel.js';
import { setupFieldPanel } from './field-panel.js';

const ponyfill = !globalThis.PERFSHIM.force;
if (!ponyfill) perfshim.install({ force: true });
const perf = ponyfill ? perfshim.performance : globalThis.performance;
const Observer = ponyfill ? perfshim.PerformanceObserver : globalThis.PerformanceObserver;
const Profiler = ponyfill ? perfshim.Profiler : globalThis.Profiler;

const here = new URL(location.href);
const other = new URL(here);
other.searchParams.set('mode', ponyfill ? 'installed' : 'ponyfill');
const plain = location.pathname.startsWith('/demo/plain');
const yes = (b) => `<b class="${b ? 'yes' : 'no'}">${b ? 'yes' : 'no'}</b>`;
document.getElementById('mode').innerHTML =
  `<span class="seg"><a class="${ponyfill ? '' : 'on'}" href="${ponyfill ? other.pathname + other.search : '#'}">installed</a>` +
  `<a class="${ponyfill ? 'on' : ''}" href="${ponyfill ? '#' : other.pathname + other.search}">ponyfill</a></span>` +
  `<span class="seg"><a class="${plain ? '' : 'on'}" href="/demo/${location.search}">/demo/</a>` +
  `<a class="${plain ? 'on' : ''}" href="/demo/plain/${location.search}">/demo/plain/</a></span>` +
  `<span class="facts">cross-origin isolated ${yes(globalThis.crossOriginIsolated)} · ` +
  `js-profiling policy ${yes(!plain)}</span>`;

const badge = (id, text, kind) => {
  const b = document.getElementById(id);
  b.textContent = text;
  b.className = `badge ${kind}`;
};
badge(
  'timeline-source',
  ponyfill ? 'perfshim ponyfill (globals untouched)' : "perfshim, installed over the browser's",
  'polyfill',
);

const shown = []; // entries on the waterfall, in arrival order
const MAX_ROWS = 40;

const seen = new WeakSet(); // Chromium may deliver its navigation entry twice (observed natively too)
function add(entries) {
  for (const e of entries) {
    if (seen.has(e)) continue;
    seen.add(e);
    shown.push(e);
  }
  while (shown.length > MAX_ROWS) shown.shift();
  draw();
}

const svgNS = 'http://www.w3.org/2000/svg';
function el(name, attrs, text) {
  const n = document.createElementNS(svgNS, name);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  if (text !== undefined) n.textContent = text;
  return n;
}

function fmt(ms) {
  return `${ms.toFixed(1)} ms`;
}

/** Resource and navigation entries are named by URL: show the file, not the origin. */
function shortName(e) {
  if (e.entryType !== 'resource' && e.entryType !== 'navigation') return e.name;
  try {
    const u = new URL(e.name);
    return u.pathname.split('/').filter(Boolean).pop() || u.pathname;
  } catch {
    return e.name;
  }
}

function draw() {
  const svg = document.getElementById('waterfall');
  svg.textContent = '';
  const width = svg.clientWidth || 900;
  const rows = shown.slice().sort((a, b) => a.startTime - b.startTime);
  const ROW = 14,
    TOP = 4;
  const labels = [];
  const height = Math.max(120, TOP + 6 + rows.length * ROW);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.style.height = `${height}px`;
  const end = Math.max(1, ...rows.map((e) => e.startTime + Math.max(0, e.duration)));
  const left = 170,
    right = width - 10;
  const x = (t) => left + ((right - left) * t) / end;
  for (let i = 0; i <= 4; i++) {
    const t = (end * i) / 4;
    svg.append(el('line', { x1: x(t), x2: x(t), y1: 0, y2: height, stroke: '#e6e9f2' }));
    const label = document.createElement('span');
    label.textContent = fmt(t);
    label.style[i === 4 ? 'right' : 'left'] = i === 4 ? `${width - x(t) + 2}px` : `${x(t) + 2}px`;
    labels.push(label);
  }
  document.getElementById('waterfall-axis').replaceChildren(...labels);
  rows.forEach((e, i) => {
    const y = TOP + i * ROW;
    const kind = e.entryType === 'mark' ? 'mark' : e.entryType === 'measure' ? 'measure' : 'native';
    svg.append(el('text', { x: 4, y: y + 9 }, `${e.entryType}: ${shortName(e)}`.slice(0, 30)));
    const w =
      kind === 'mark' ? 3 : Math.max(2, x(e.startTime + Math.abs(e.duration)) - x(e.startTime));
    const rect = el('rect', {
      x: x(e.startTime),
      y,
      width: w,
      height: 10,
      rx: 2,
      class: `bar-${kind}`,
    });
    const detail =
      'detail' in e && e.detail !== null ? `\ndetail: ${JSON.stringify(e.detail)}` : '';
    rect.dataset.tip = `${e.entryType} "${e.name}"\nstartTime: ${fmt(e.startTime)}\nduration: ${fmt(e.duration)}${detail}`;
    svg.append(rect);
  });
  // Newest entries are at the bottom: keep them in view.
  svg.parentElement.scrollTop = svg.parentElement.scrollHeight;
  const tbody = document.querySelector('#entries tbody');
  tbody.textContent = '';
  for (const e of rows.slice(-12)) {
    const tr = document.createElement('tr');
    const detail = 'detail' in e && e.detail !== null ? JSON.stringify(e.detail) : '';
    for (const [v, cls] of [
      [e.entryType],
      [e.name],
      [e.startTime.toFixed(2), 'num'],
      [e.duration.toFixed(2), 'num'],
      [detail],
    ]) {
      const td = document.createElement('td');
      td.textContent = v;
      if (cls) td.className = cls;
      tr.append(td);
    }
    tbody.append(tr);
  }
}

// Hover: the entry's name, times and detail in a tooltip.
{
  const svg = document.getElementById('waterfall');
  const tip = document.getElementById('waterfall-tip');
  svg.addEventListener('mousemove', (ev) => {
    const text = ev.target.dataset && ev.target.dataset.tip;
    if (!text) {
      tip.hidden = true;
      return;
    }
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = `${Math.min(ev.clientX + 12, window.innerWidth - 300)}px`;
    tip.style.top = `${Math.min(ev.clientY + 14, window.innerHeight - tip.offsetHeight - 8)}px`;
  });
  svg.addEventListener('mouseleave', () => {
    tip.hidden = true;
  });
}

// Our entries arrive through an observer; the browser's own through the same observer type
// (buffered), so both appear on one axis.
new Observer((list) => add(list.getEntries())).observe({ entryTypes: ['mark', 'measure'] });
for (const type of ['navigation', 'resource', 'paint']) {
  if (Observer.supportedEntryTypes.includes(type)) {
    new Observer((list) => add(list.getEntries())).observe({ type, buffered: true });
  }
}

let counter = 0;
let lastMark = null;
document.getElementById('btn-mark').onclick = () => {
  lastMark = `click-${++counter}`;
  perf.mark(lastMark, { detail: { button: 'mark', n: counter } });
};
document.getElementById('btn-measure').onclick = () => {
  if (!lastMark) perf.mark((lastMark = `click-${++counter}`));
  perf.measure(`since ${lastMark}`, { start: lastMark, detail: { kind: 'since-last-mark' } });
};
document.getElementById('btn-workload').onclick = async () => {
  perf.mark('workload-start');
  for (const [name, n] of [
    ['sort', 2e5],
    ['json', 2e4],
    ['sum', 3e6],
  ]) {
    perf.mark(`${name}-start`);
    if (name === 'sort') Array.from({ length: n }, () => Math.random()).sort();
    if (name === 'json')
      JSON.parse(JSON.stringify(Array.from({ length: n }, (_, i) => ({ i, s: `v${i}` }))));
    if (name === 'sum') {
      let s = 0;
      for (let i = 0; i < n; i++) s += Math.sqrt(i);
      globalThis.__sum = s;
    }
    perf.measure(name, `${name}-start`, undefined);
    await new Promise((r) => setTimeout(r, 10));
  }
  perf.measure('workload', { start: 'workload-start', detail: { steps: 3 } });
};
document.getElementById('btn-clear').onclick = () => {
  perf.clearMarks();
  perf.clearMeasures();
  shown.splice(
    0,
    shown.length,
    ...shown.filter((e) => e.entryType !== 'mark' && e.entryType !== 'measure'),
  );
  draw();
};

// Whether the browser's own Profiler samples here (Chromium under the js-profiling document
// policy): a throwaway native session tells. perfshim's Profiler uses it then, and the
// instrumentation source elsewhere (without the policy, in Firefox and WebKit).
function nativeAllowed() {
  if (!DEMO_NATIVE.Profiler) return false;
  try {
    new DEMO_NATIVE.Profiler({ sampleInterval: 10, maxBufferSize: 1 }).stop().catch(() => {});
    return true;
  } catch {
    return false;
  }
}

// Which sample source the Profiler has here (a runtime with none throws NotAllowedError).
function profilerSource(instrumented) {
  try {
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 1 });
    p.stop().catch(() => {});
    if (nativeOk)
      return {
        kind: 'native',
        badge: `Chromium's native Profiler, re-encoded by perfshim${ponyfill ? ' (ponyfill)' : ''}`,
      };
    const how =
      globalThis.crossOriginIsolated && typeof SharedArrayBuffer === 'function'
        ? 'shared-stack sampler'
        : 'log sampler';
    return {
      kind: 'polyfill',
      badge: `perfshim instrumentation source (${how})${instrumented ? '' : ': no instrumented workloads served, samples without stacks'}`,
    };
  } catch (e) {
    return {
      kind: 'unavailable',
      badge: `new Profiler() throws ${e.name}`,
      errorName: e.name,
      message: e.message,
      hint: 'This runtime has no source for perfshim to sample through.',
    };
  }
}

// Without a usable native Profiler, the workloads come instrumented (demo/headers.mjs runs
// perfshim's transform on them when serving), and the Profiler samples them through
// instrumentation.
const nativeOk = nativeAllowed();
let workloads;
if (!nativeOk) {
  try {
    workloads = await import('./workloads.instrumented.js');
  } catch {
    /* served without the instrumented copy: the samples have no stacks */
  }
}
const source = profilerSource(!!workloads);

const exportsPanel = setupExportPanel({ perfshim, perf });
setupProfilerPanel({
  Profiler,
  source,
  workloads,
  fromCpuProfile: perfshim.fromCpuProfile,
  onTrace: (trace, info) => exportsPanel.setTrace(trace, info),
});
setupMemoryPanel({ perf, nativeMemory: DEMO_NATIVE.measureMemory });
setupFieldPanel({ Profiler, workloads: workloads || (await import('./workloads.js')) });

perf.mark('demo-ready', { detail: { mode: ponyfill ? 'ponyfill' : 'installed' } });
globalThis.__demoReady = true;
