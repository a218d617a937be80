// toTraceEvents as Chrome DevTools reads it: DevTools' own trace engine (npm
// @paulirish/trace_engine, the Performance panel's and Lighthouse's model) over a profile of
// named workload functions with marks, measures and details finds the main thread
// (CrRendererMain) with a Bottom-up tree of the functions and their self time, the marks and
// measures with their details (a mark's in args.data.detail), and a RunTask holding every sample.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import * as Trace from '@paulirish/trace_engine';
import { getProfiler } from '../../glue/profiler/profiler.js';
import { performance } from '../../glue/index.js';
import { exportersUnderTest } from './fixtures/export-traces.mjs';

const { toTraceEvents } = exportersUnderTest();

// Each workload spins in its own body (self time), workloadBeta also calls workloadAlpha.
function workloadAlpha(ms) {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) for (let i = 0; i < 1000; i++) x += Math.sqrt(x + i);
  return x;
}
function workloadBeta(ms) {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) for (let i = 0; i < 1000; i++) x += Math.sqrt(x + i);
  return x + workloadAlpha(ms / 2);
}

const MARK_DETAIL = {
  phase: 'alpha',
  devtools: { dataType: 'marker', color: 'primary', tooltipText: 'alpha starts' },
};
const MEASURE_DETAIL = {
  items: 3,
  devtools: { dataType: 'track-entry', track: 'perfshim work', tooltipText: 'both' },
};
let trace, doc, parsed;

before(async () => {
  const p = new (getProfiler())({ sampleInterval: 1, maxBufferSize: 100000 });
  performance.mark('alpha:start', { detail: MARK_DETAIL });
  workloadAlpha(80);
  performance.mark('beta:start', { detail: { phase: 'beta' } });
  workloadBeta(80);
  performance.measure('alpha+beta', { start: 'alpha:start', detail: MEASURE_DETAIL });
  performance.measure('beta', { start: 'beta:start' });
  trace = await p.stop();
  doc = toTraceEvents(trace, { entries: performance.getEntries() });
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(doc.traceEvents);
  parsed = model.parsedTrace().data;
});

const mainThreads = () =>
  [...parsed.Renderer.processes.values()]
    .flatMap((proc) => [...proc.threads.values()].map((t) => ({ proc, t })))
    .filter(({ t }) => t.name === 'CrRendererMain');

test("the renderer process and its CrRendererMain thread are kept, with the main script's URL", () => {
  const main = mainThreads();
  assert.equal(main.length, 1, 'one main thread');
  const { proc, t } = main[0];
  assert.equal(
    proc.url,
    new URL(`file://${fileURLToPath(import.meta.url)}`).href,
    "the page URL: this script's file: URL",
  );
  assert.equal(proc.isOnMainFrame, true);
  assert.ok(
    t.entries.some((e) => e.name === 'ProfileCall'),
    'the samples are on the track',
  );
});

test('the Bottom-up tree has the named workload functions with self time', () => {
  const { t } = mainThreads()[0];
  const { TraceTree, TraceFilter } = Trace.Extras;
  const H = Trace.Helpers;
  // As DevTools' Bottom-up tab builds it (ThirdParties.getBottomUpTree, TimelineTreeView).
  const root = new TraceTree.BottomUpRootNode(t.entries, {
    textFilter: new TraceFilter.ExclusiveNameFilter([]),
    filters: [new TraceFilter.VisibleEventsFilter([...H.Trace.VISIBLE_TRACE_EVENT_TYPES.values()])],
    startTime: H.Timing.microToMilli(parsed.Meta.traceBounds.min),
    endTime: H.Timing.microToMilli(parsed.Meta.traceBounds.max),
  });
  const self = new Map();
  for (const n of root.children().values()) {
    const name = n.event && n.event.callFrame && n.event.callFrame.functionName;
    if (name) self.set(name, (self.get(name) || 0) + n.selfTime);
  }
  for (const name of ['workloadAlpha', 'workloadBeta']) {
    assert.ok(self.get(name) > 5, `${name} self time ${self.get(name)} ms (${[...self.keys()]})`);
  }
  assert.ok(
    self.get('workloadAlpha') > self.get('workloadBeta') / 4,
    'alpha runs twice (alone and under beta)',
  );
});

test('marks and measures are there, with their details where DevTools reads them', () => {
  const ut = parsed.UserTimings;
  const marks = new Map(ut.performanceMarks.map((m) => [m.name, m]));
  assert.deepEqual([...marks.keys()].sort(), ['alpha:start', 'beta:start']);
  const alpha = marks.get('alpha:start');
  assert.equal(
    typeof alpha.args.data.detail,
    'string',
    "a JSON string, like Chromium's own traces",
  );
  assert.deepEqual(JSON.parse(alpha.args.data.detail), MARK_DETAIL);
  assert.deepEqual(JSON.parse(marks.get('beta:start').args.data.detail), { phase: 'beta' });
  const measures = new Map(ut.performanceMeasures.map((m) => [m.name, m]));
  assert.deepEqual([...measures.keys()].sort(), ['alpha+beta', 'beta']);
  assert.deepEqual(
    JSON.parse(measures.get('alpha+beta').args.data.beginEvent.args.detail),
    MEASURE_DETAIL,
  );
  const span = measures.get('alpha+beta');
  assert.equal(span.ts, alpha.ts, 'the measure starts at its start mark');
});

test("DevTools extension entries from details: the mark's marker and the measure's track entry", () => {
  const ext = parsed.ExtensionTraceData;
  assert.deepEqual(
    ext.extensionMarkers.map((m) => m.name),
    ['alpha:start'],
  );
  assert.deepEqual(ext.extensionMarkers[0].devtoolsObj, MARK_DETAIL.devtools);
  assert.deepEqual(
    ext.extensionMarkers[0].userDetail,
    { phase: 'alpha' },
    "the detail drawer's content",
  );
  const tracks = ext.extensionTrackData.map((t) => t.name);
  assert.ok(tracks.includes('perfshim work'), `tracks: ${tracks}`);
});

test('RunTask ends one interval after the last sample, and the last sample stays in it', () => {
  const { t } = mainThreads()[0];
  const tasks = t.entries.filter((e) => e.name === 'RunTask');
  assert.equal(tasks.length, 1);
  const [task] = tasks;
  const times = trace.samples.map((s) => Math.round(s.timestamp * 1000)).sort((a, b) => a - b);
  const interval = Math.trunc((times.at(-1) - times[0]) / (times.length - 1));
  assert.equal(task.ts, times[0] - 1, 'the task starts just before the first sample');
  assert.equal(task.ts + task.dur, times.at(-1) + interval);
  // The calls the last sample stands in (identical consecutive samples are one call).
  const at = times.at(-1);
  const calls = t.entries.filter(
    (e) => e.name === 'ProfileCall' && e.ts <= at && at < e.ts + e.dur,
  );
  assert.ok(calls.length > 0, 'the last sample is in a call that lasts past it');
  const last = calls.reduce((a, b) => (b.ts >= a.ts ? b : a));
  assert.ok(last.ts + last.dur <= task.ts + task.dur, 'inside the task');
  let node = parsed.Renderer.entryToNode.get(last);
  while (node && node.parent) node = node.parent;
  assert.equal(node && node.entry, task, 'the last call is under the RunTask');
});

test('options.url sets the page URL; a string that is not a URL is a TypeError', () => {
  const d = toTraceEvents(trace, { url: 'https://example.test/app' });
  const started = d.traceEvents.find((e) => e.name === 'TracingStartedInBrowser');
  assert.equal(started.args.data.frames[0].url, 'https://example.test/app');
  assert.throws(
    () => toTraceEvents(trace, { url: 'not a url' }),
    (e) => e instanceof TypeError && e.name === 'TypeError',
  );
  assert.throws(
    () => toTraceEvents(trace, { url: 5 }),
    (e) => e instanceof TypeError && e.name === 'TypeError',
  );
});
