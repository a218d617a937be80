// The trace exporters in Chromium, Firefox and WebKit, from the bundle a page loads
// (dist/perfshim.mjs): every format comes out byte for byte as Node's copy of the same bundle
// writes it, passes the format's schema check, and a .cpuprofile opens again through
// fromCpuProfile with the same samples. Bad input is the same TypeError in every engine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launchEngine, forEachEngine } from './harness.js';
import {
  assertCpuProfile,
  assertSpeedscope,
  assertTraceEvents,
  assertFirefoxProfile,
} from '../node/fixtures/export-schemas.mjs';

// A trace with shared prefixes, anonymous and unpositioned frames, samples without a stack and
// a gc marker; marks and measures (with details) as plain entries.
const TRACE = {
  resources: ['https://app.test/main.js', 'https://app.test/lib.js'],
  frames: [
    { name: 'main', resourceId: 0, line: 1, column: 1 },
    { name: 'render', resourceId: 0, line: 20, column: 5 },
    { name: 'parse', resourceId: 1, line: 3, column: 9 },
    { name: '', resourceId: 1, line: 40, column: 2 },
    { name: 'native' },
  ],
  stacks: [
    { frameId: 0 },
    { frameId: 1, parentId: 0 },
    { frameId: 2, parentId: 0 },
    { frameId: 3, parentId: 2 },
    { frameId: 4, parentId: 1 },
  ],
  samples: [
    { timestamp: 10, stackId: 1 },
    { timestamp: 20, stackId: 3 },
    { timestamp: 30, stackId: 4 },
    { timestamp: 40 },
    { timestamp: 50, stackId: 2, marker: 'gc' },
    { timestamp: 60, stackId: 3, marker: 'script' },
  ],
};
const ENTRIES = [
  { entryType: 'mark', name: 'start', startTime: 5, duration: 0, detail: { step: 1 } },
  { entryType: 'measure', name: 'work', startTime: 8, duration: 50, detail: null },
  { entryType: 'paint', name: 'first-paint', startTime: 9, duration: 0 },
];
const OPTIONS = { name: 'engines', timeOrigin: 1700000000000, interval: 10 };

/** Every export of `trace` as JSON text, through the module `m` (the page's or Node's). */
async function exportAll([trace, entries, options]) {
  const m = await import(globalThis.window ? '/dist/perfshim.mjs' : '../../dist/perfshim.mjs');
  const cpu = m.toCpuProfile(trace);
  const back = m.fromCpuProfile(cpu);
  const grab = (f) => {
    try {
      f();
      return null;
    } catch (e) {
      return [e.constructor.name, e.name];
    }
  };
  return {
    cpuprofile: JSON.stringify(cpu),
    speedscope: JSON.stringify(m.toSpeedscope(trace, { name: options.name })),
    traceEvents: JSON.stringify(m.toTraceEvents(trace, { entries, url: 'https://app.test/' })),
    firefox: JSON.stringify(m.toFirefoxProfile(trace, options)),
    roundTrip: back.samples.map((s) => [s.timestamp, s.stackId === undefined ? null : s.stackId]),
    bad: [
      grab(() => m.toCpuProfile(null)),
      grab(() => m.toSpeedscope({ resources: [], frames: [{}], stacks: [], samples: [] })),
      grab(() => m.fromCpuProfile({ nodes: 1 })),
    ],
  };
}

let server, expected;
before(async () => {
  server = await serve({
    routes: {
      '/exporters.html': { body: '<!doctype html><meta charset=utf-8><title>exporters</title>' },
    },
  });
  expected = await exportAll([TRACE, ENTRIES, OPTIONS]);
  assertCpuProfile(JSON.parse(expected.cpuprofile));
  assertSpeedscope(JSON.parse(expected.speedscope));
  assertTraceEvents(JSON.parse(expected.traceEvents));
  assertFirefoxProfile(JSON.parse(expected.firefox));
  assert.equal(expected.roundTrip.length, TRACE.samples.length);
  for (const b of expected.bad) assert.deepEqual(b, ['TypeError', 'TypeError']);
});
after(async () => {
  if (server) await server.close();
});

forEachEngine((engine) => {
  let browser, page;
  before(async () => {
    browser = await launchEngine(engine);
    page = await browser.newPage();
    await page.goto(`${server.url}/exporters.html`);
  });
  after(async () => {
    if (browser) await browser.close();
  });

  test('every format as Node writes it; the .cpuprofile round trip; bad input a TypeError', async () => {
    const r = await page.evaluate(exportAll, [TRACE, ENTRIES, OPTIONS]);
    for (const k of ['cpuprofile', 'speedscope', 'traceEvents', 'firefox'])
      assert.equal(r[k], expected[k], k);
    assert.deepEqual(r.roundTrip, expected.roundTrip);
    assert.deepEqual(r.bad, expected.bad);
    assert.deepEqual(await page.errors(), []);
  });
});
