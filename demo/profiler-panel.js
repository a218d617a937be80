// The profiler panel: run a workload under perfshim's Profiler, draw the trace as a flame graph
// (identical stack paths merged, width = sample count) and a top-functions table.
import * as plainWorkloads from './workloads.js';

const $ = (id) => document.getElementById(id);

/** Identical stack paths merged into one tree: {name, frame, count, self, ms, selfMs,
 *  children: Map}. A sample weighs the time to the next sample (capped at twice the interval;
 *  the last one weighs one interval): Chromium sometimes takes bursts of samples a fraction of
 *  a millisecond apart, so sample counts alone overstate what ran then. */
export function aggregate(trace, intervalMs) {
  const root = {
    name: 'all samples',
    frame: null,
    count: 0,
    self: 0,
    ms: 0,
    selfMs: 0,
    children: new Map(),
  };
  const paths = new Map(); // stackId -> frame ids, root first
  const pathOf = (stackId) => {
    if (paths.has(stackId)) return paths.get(stackId);
    const frames = [];
    for (let s = stackId; s !== undefined && s !== null; ) {
      const st = trace.stacks[s];
      frames.push(st.frameId);
      s = st.parentId;
    }
    frames.reverse();
    paths.set(stackId, frames);
    return frames;
  };
  const samples = trace.samples;
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i];
    const w =
      i + 1 < samples.length
        ? Math.min(samples[i + 1].timestamp - sample.timestamp, 2 * intervalMs)
        : intervalMs;
    root.count++;
    root.ms += w;
    if (sample.stackId === undefined || sample.stackId === null) {
      root.self++;
      root.selfMs += w;
      continue;
    }
    let node = root;
    for (const f of pathOf(sample.stackId)) {
      let child = node.children.get(f);
      if (!child) {
        const fr = trace.frames[f];
        child = {
          name: fr.name || '(anonymous)',
          frame: fr,
          count: 0,
          self: 0,
          ms: 0,
          selfMs: 0,
          children: new Map(),
        };
        node.children.set(f, child);
      }
      child.count++;
      child.ms += w;
      node = child;
    }
    node.self++;
    node.selfMs += w;
  }
  return root;
}

/** Self and total sample counts per function (name + resource + line); a function that
 *  recurses counts once towards its total. */
export function topFunctions(trace, root) {
  const byKey = new Map();
  const onPath = new Map(); // key -> how many times it is on the current path
  const keyOf = (n) => `${n.name}|${n.frame.resourceId ?? ''}|${n.frame.line ?? ''}`;
  const walk = (node) => {
    for (const child of node.children.values()) {
      const k = keyOf(child);
      let row = byKey.get(k);
      if (!row) {
        const url =
          child.frame.resourceId !== undefined ? trace.resources[child.frame.resourceId] : '';
        row = {
          name: child.name,
          where: url ? `${url.split('/').pop()}:${child.frame.line ?? '?'}` : '',
          self: 0,
          total: 0,
        };
        byKey.set(k, row);
      }
      row.self += child.selfMs;
      const depth = onPath.get(k) || 0;
      if (depth === 0) row.total += child.ms;
      onPath.set(k, depth + 1);
      walk(child);
      onPath.set(k, depth);
    }
  };
  walk(root);
  return [...byKey.values()].sort((a, b) => b.self - a.self || b.total - a.total);
}

const PALETTE = ['#ffb26b', '#ff9f5a', '#ffc58a', '#f9a66c', '#ffd39c', '#f5b77d'];
function colorFor(node) {
  const url = node.frame && node.frame.resourceId !== undefined;
  if (!url) return '#c9d3e6'; // native / no resource
  let h = 0;
  for (const c of node.name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

/** Draw the merged tree as an icicle-style flame graph (root on top). Returns the boxes drawn. */
export function drawFlame(canvas, root, trace) {
  const boxes = [];
  const dpr = window.devicePixelRatio || 1;
  const width = canvas.clientWidth || 800;
  let maxDepth = 0;
  const depthOf = (n, d) => {
    maxDepth = Math.max(maxDepth, d);
    for (const c of n.children.values()) depthOf(c, d + 1);
  };
  depthOf(root, 0);
  const ROW = 18;
  const height = Math.max(120, (maxDepth + 1) * ROW + 4);
  canvas.style.height = `${height}px`;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  const ctx = canvas.getContext('2d');
  ctx.scale(dpr, dpr);
  ctx.clearRect(0, 0, width, height);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  if (!root.count) return boxes;
  const scale = width / root.ms;
  const place = (node, x, depth) => {
    const w = node.ms * scale;
    const y = depth * ROW;
    ctx.fillStyle = node === root ? '#8da2c9' : node.frame === null ? '#dde2ec' : colorFor(node);
    ctx.fillRect(x, y, Math.max(0.5, w - 1), ROW - 1);
    const url =
      node.frame && node.frame.resourceId !== undefined
        ? trace.resources[node.frame.resourceId]
        : '';
    const label =
      node === root
        ? `all samples: ${root.count} over ${root.ms.toFixed(0)} ms${root.self ? `, ${root.self} without a JS stack` : ''}`
        : node.name;
    if (w > 30) {
      ctx.fillStyle = '#1d2330';
      ctx.save();
      ctx.beginPath();
      ctx.rect(x, y, w - 2, ROW);
      ctx.clip();
      ctx.fillText(label, x + 4, y + ROW / 2);
      ctx.restore();
    }
    boxes.push({
      x,
      y,
      w,
      h: ROW - 1,
      name: label,
      samples: node.count,
      self: node.self,
      ms: node.ms,
      selfMs: node.selfMs,
      where: url ? `${url}:${node.frame.line ?? '?'}:${node.frame.column ?? '?'}` : '(no resource)',
    });
    let cx = x;
    const kids = [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name));
    if (node === root && root.selfMs > 0) {
      // Samples without a JS stack (idle, or code Chromium could not walk) as a grey pseudo-frame.
      const idle = {
        name: '(no JS stack)',
        frame: null,
        count: root.self,
        self: root.self,
        ms: root.selfMs,
        selfMs: root.selfMs,
        children: new Map(),
      };
      kids.push(idle);
    }
    for (const c of kids) {
      place(c, cx, depth + 1);
      cx += c.ms * scale;
    }
  };
  place(root, 0, 0);
  canvas.dataset.functions = JSON.stringify([...new Set(boxes.map((b) => b.name))]);
  return boxes;
}

export function setupProfilerPanel({
  Profiler,
  onTrace,
  source,
  fromCpuProfile,
  workloads = plainWorkloads,
}) {
  // The instrumented copy of the workloads where the Profiler samples through instrumentation.
  const { WORKLOADS, runWorkload } = workloads;
  const sel = $('prof-workload');
  for (const [key, w] of Object.entries(WORKLOADS)) sel.append(new Option(w.label, key));
  $('profiler-source').textContent = source.badge;
  $('profiler-source').className = `badge ${source.kind}`;
  const status = $('prof-status');
  const btn = $('btn-profile');
  const canvas = $('flame');
  const tip = $('flame-tip');
  let boxes = [];

  const setStatus = (html, kind = '') => {
    status.innerHTML = html;
    status.className = `status ${kind}`;
  };
  const placeholder = $('flame-empty');
  if (source.kind === 'unavailable') {
    placeholder.textContent = `No trace here: the profiler is not allowed in this document. ${source.hint}`;
    setStatus(
      `<b>new Profiler() throws ${source.errorName}</b>: ${escapeHtml(source.message)}`,
      'error',
    );
  } else {
    setStatus('Choose a workload and press <b>profile</b>.');
  }

  const show = (trace, intervalMs) => {
    const root = aggregate(trace, intervalMs);
    placeholder.hidden = true;
    boxes = drawFlame(canvas, root, trace);
    fillTop(topFunctions(trace, root), root.ms);
  };

  // Open a .cpuprofile (Chrome DevTools, node --cpu-prof, or this page's export) through
  // perfshim.fromCpuProfile, when the build has it.
  const input = $('prof-import');
  if (typeof fromCpuProfile !== 'function') {
    input.disabled = true;
    input.parentElement.title = 'perfshim.fromCpuProfile is not available in this build';
    input.parentElement.classList.add('disabled');
  }
  input.onchange = async function importCpuProfile() {
    const file = input.files[0];
    if (!file) return;
    try {
      const trace = fromCpuProfile(await file.text());
      const gaps = trace.samples
        .slice(1)
        .map((x, i) => x.timestamp - trace.samples[i].timestamp)
        .sort((a, b) => a - b);
      const interval = gaps.length ? Math.max(0.01, gaps[gaps.length >> 1]) : 1;
      show(trace, interval);
      setStatus(
        `Opened <b>${escapeHtml(file.name)}</b> with <code>fromCpuProfile()</code>: <b>${trace.samples.length}</b> samples, ${trace.frames.length} frames, ${trace.stacks.length} stacks (median interval ${interval.toFixed(2)} ms).`,
        'ok',
      );
      onTrace(trace, {
        workload: file.name.replace(/\.(cpuprofile|json)$/, ''),
        sampleInterval: interval,
      });
    } catch (e) {
      setStatus(`fromCpuProfile() threw ${escapeHtml(e.name)}: ${escapeHtml(e.message)}`, 'error');
    }
    input.value = '';
  };

  canvas.addEventListener('mousemove', (ev) => {
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left,
      y = ev.clientY - r.top;
    const b = boxes.find((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h);
    if (!b) {
      tip.hidden = true;
      return;
    }
    tip.hidden = false;
    tip.innerHTML = `<b>${escapeHtml(b.name)}</b><br>total ${b.ms.toFixed(0)} ms (${b.samples} samples), self ${b.selfMs.toFixed(0)} ms (${b.self})<br><span class="where">${escapeHtml(b.where)}</span>`;
    tip.style.left = `${Math.min(ev.clientX + 12, window.innerWidth - 280)}px`;
    tip.style.top = `${Math.min(ev.clientY + 14, window.innerHeight - tip.offsetHeight - 8)}px`;
  });
  canvas.addEventListener('mouseleave', () => {
    tip.hidden = true;
  });

  btn.onclick = async function profileButtonClicked() {
    const name = sel.value;
    const sampleInterval = Number($('prof-interval').value);
    const maxBufferSize = Number($('prof-buffer').value);
    const ms = Number($('prof-duration').value);
    let profiler;
    try {
      profiler = new Profiler({ sampleInterval, maxBufferSize });
    } catch (e) {
      setStatus(
        `<b>new Profiler() threw ${escapeHtml(e.name)}</b>: ${escapeHtml(e.message)}`,
        'error',
      );
      return;
    }
    btn.disabled = true;
    let full = false,
      fullAt = 0;
    const t0 = performance.now();
    profiler.addEventListener('samplebufferfull', () => {
      full = true;
      fullAt = performance.now() - t0;
    });
    setStatus(
      `<span class="spinner"></span>profiling <b>${escapeHtml(WORKLOADS[name].label)}</b> — asked for ${sampleInterval} ms, sampling every ${profiler.sampleInterval} ms, buffer ${maxBufferSize} samples…`,
      'busy',
    );
    await runWorkload(name, ms, { host: $('dom-host'), shouldStop: () => full });
    let trace;
    try {
      trace = await profiler.stop();
    } catch (e) {
      setStatus(`stop() rejected with ${escapeHtml(e.name)}: ${escapeHtml(e.message)}`, 'error');
      btn.disabled = false;
      return;
    }
    btn.disabled = false;
    show(trace, profiler.sampleInterval);
    if (full) {
      // As in Chromium (and WPT): sampling ended when the buffer filled; stop() still resolves.
      setStatus(
        `<b>samplebufferfull</b> fired after ${fullAt.toFixed(0)} ms (buffer of ${maxBufferSize} samples at ${profiler.sampleInterval} ms): sampling ended there, and stop() resolved with the first <b>${trace.samples.length}</b> samples. Use a larger buffer to see the whole run.`,
        'warn',
      );
      status.dataset.bufferfull = 'true';
      onTrace(trace, { workload: name, sampleInterval: profiler.sampleInterval });
      return;
    }
    setStatus(
      `<b>${trace.samples.length}</b> samples, ${trace.frames.length} frames, ${trace.stacks.length} stacks from <b>${escapeHtml(WORKLOADS[name].label)}</b> at ${profiler.sampleInterval} ms. Hover the flame graph for details.`,
      'ok',
    );
    onTrace(trace, { workload: name, sampleInterval: profiler.sampleInterval });
  };
}

function fillTop(rows, totalMs) {
  const tbody = document.querySelector('#top tbody');
  tbody.textContent = '';
  for (const r of rows.slice(0, 10)) {
    const tr = document.createElement('tr');
    const fn = document.createElement('td');
    fn.innerHTML = `<span class="fn">${escapeHtml(r.name)}</span><span class="where">${escapeHtml(r.where || 'native')}</span>`;
    const pct = (ms) => `${ms.toFixed(0)} ms <small>${((100 * ms) / totalMs).toFixed(0)}%</small>`;
    const self = document.createElement('td');
    self.className = 'num';
    self.innerHTML = pct(r.self);
    const total = document.createElement('td');
    total.className = 'num';
    total.innerHTML = pct(r.total);
    tr.append(fn, self, total);
    tbody.append(tr);
  }
}

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
