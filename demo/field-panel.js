// The Field panel: simulated visits of two releases go to a field collector (demo/field-server.mjs,
// another origin), each a profile of a workload encoded by the field core as the page client
// (perfshim/field) would send it; the panel then draws the collector's aggregate as a flame graph
// (filtered by label), and a diff of the two releases: the functions whose share of the time
// changed most. Release B spends longer in the JSON workload.
import { createField } from '../glue/field/core.js';
import { autoLabels } from '../glue/field/visits.js';
import { drawFlame, escapeHtml } from './profiler-panel.js';

const $ = (id) => document.getElementById(id);
const VISITS = { A: { sorting: 250, json: 100 }, B: { sorting: 250, json: 400 } };

/** The flame tree (profiler-panel.js's node shape) of the aggregates `list` whose labels match
 *  `filter`, and {function: {self, total}} ms. */
function merge(list, filter) {
  const root = { name: 'all samples', frame: null, count: 0, self: 0, ms: 0, selfMs: 0 };
  root.children = new Map();
  const fns = {};
  const resources = [];
  for (const a of list) {
    if (Object.entries(filter).some(([k, v]) => v && a.labels[k] !== v)) continue;
    const paths = [];
    a.stacks.forEach((s, i) => {
      const f = a.frames[s.frameId];
      const frame = { ...f, resourceId: undefined };
      if (f.resourceId !== undefined) {
        const url = a.resources[f.resourceId];
        frame.resourceId = resources.includes(url)
          ? resources.indexOf(url)
          : resources.push(url) - 1;
      }
      paths[i] = [...(s.parentId === undefined ? [] : paths[s.parentId]), frame];
      if (!a.count[i]) return;
      const ms = a.time[i];
      root.count += a.count[i];
      root.ms += ms;
      let node = root;
      for (const fr of paths[i]) {
        const key = `${fr.name}|${fr.resourceId}|${fr.line}`;
        let c = node.children.get(key);
        if (!c) {
          c = { name: fr.name || '(anonymous)', frame: fr, count: 0, self: 0, ms: 0, selfMs: 0 };
          c.children = new Map();
          node.children.set(key, c);
        }
        c.count += a.count[i];
        c.ms += ms;
        node = c;
      }
      node.self += a.count[i];
      node.selfMs += ms;
      const names = new Set(paths[i].map((fr) => fr.name));
      for (const n of names) (fns[n] ||= { self: 0, total: 0 }).total += ms;
      if (paths[i].length) (fns[paths[i].at(-1).name] ||= { self: 0, total: 0 }).self += ms;
    });
  }
  return { root, fns, trace: { resources } };
}

/** Rows of the diff: functions by the change of their share of the total time, B - A. */
function diff(a, b) {
  const sum = (m) => Object.values(m.fns).reduce((x, f) => x + f.self, 0) || 1;
  const ta = sum(a),
    tb = sum(b);
  const names = new Set([...Object.keys(a.fns), ...Object.keys(b.fns)]);
  return [...names]
    .map((name) => {
      const fa = a.fns[name] || { self: 0, total: 0 },
        fb = b.fns[name] || { self: 0, total: 0 };
      return { name, self: fb.self / tb - fa.self / ta, total: fb.total / tb - fa.total / ta };
    })
    .sort((x, y) => y.total - x.total || y.self - x.self);
}

export function setupFieldPanel({ Profiler, workloads }) {
  const status = $('field-status');
  const say = (html) => {
    status.innerHTML = html;
  };
  let list = [];
  let collector = null;
  const field = createField();
  fetch('field.json')
    .then((r) => r.json())
    .then((c) => {
      collector = c.collector;
      say(
        collector ? 'Press <b>simulate visits</b>.' : 'No collector: run <code>make demo</code>.',
      );
    })
    .catch(() => say('No collector: run <code>make demo</code>.'));

  const show = () => {
    const filter = { release: $('field-release').value, engine: $('field-engine').value };
    const m = merge(list, filter);
    $('field-empty').hidden = m.root.count > 0;
    drawFlame($('field-flame'), m.root, m.trace);
    const rows = diff(merge(list, { release: 'A' }), merge(list, { release: 'B' })).slice(0, 8);
    const pct = (v) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)} %`;
    $('field-diff').querySelector('tbody').innerHTML = rows
      .map(
        (r) =>
          `<tr><td>${escapeHtml(r.name)}</td><td class="num">${pct(r.self)}</td><td class="num">${pct(r.total)}</td></tr>`,
      )
      .join('');
  };
  $('field-release').onchange = show;
  $('field-engine').onchange = show;

  $('btn-field').onclick = async () => {
    if (!collector || !workloads) return say('Nothing to profile here.');
    $('btn-field').disabled = true;
    try {
      for (const [release, work] of Object.entries(VISITS))
        for (let v = 0; v < 2; v++) {
          say(`visit ${v + 1} of release ${release}…`);
          const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
          for (const [name, ms] of Object.entries(work)) await workloads.runWorkload(name, ms);
          const trace = await p.stop();
          const h = field.trace();
          field.codec.importTrace(h, trace);
          const labels = { ...autoLabels(), release };
          const body = field.encode(h, { labels, interval: p.sampleInterval });
          field.free(h);
          await fetch(`${collector}/upload`, { method: 'POST', body, mode: 'cors' });
        }
      list = await (await fetch(`${collector}/profiles`)).json();
      for (const id of ['field-release', 'field-engine']) {
        const sel = $(id);
        const key = id.slice(6);
        const values = [...new Set(list.map((a) => a.labels[key]).filter(Boolean))].sort();
        sel.replaceChildren(new Option('all', ''), ...values.map((x) => new Option(x, x)));
      }
      show();
      const top = diff(merge(list, { release: 'A' }), merge(list, { release: 'B' }))[0];
      say(
        `${list.length} aggregates at the collector. Slower in B: <b id="field-slower">${escapeHtml(top?.name ?? '?')}</b>`,
      );
    } catch (e) {
      say(`failed: ${escapeHtml(e.message)}`);
    } finally {
      $('btn-field').disabled = false;
    }
  };
}
