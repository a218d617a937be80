// profileVisits() (glue/field/visits.js) with the page's globals stubbed in Node (the Profiler is
// Node's inspector source here): an unsampled view adds no listener; a sampled one keeps a window
// with a busy run, downsamples an upload that does not fit maxBytes instead of dropping it, sends
// it at pagehide as text/plain, and counts a refused beacon, falling back to fetch keepalive.
import test from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { profileVisits, autoLabels } from '../../glue/field/visits.js';
import { createField } from '../../glue/field/core.js';

function stubPage({ beacon }) {
  const listeners = {};
  const sent = { beacons: [], fetches: [] };
  const saved = {};
  const set = (k, v) => {
    saved[k] = Object.getOwnPropertyDescriptor(globalThis, k);
    Object.defineProperty(globalThis, k, { value: v, configurable: true, writable: true });
  };
  set('addEventListener', (type, fn) => {
    (listeners[type] ||= []).push(fn);
  });
  set('removeEventListener', () => {});
  set('navigator', {
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
    hardwareConcurrency: 8,
    sendBeacon: (url, body) => {
      sent.beacons.push({ url, body });
      return beacon;
    },
  });
  set('location', { pathname: '/cart/42' });
  set('fetch', (url, init) => {
    sent.fetches.push({ url, init });
    return Promise.resolve();
  });
  return {
    listeners,
    sent,
    restore() {
      for (const [k, d] of Object.entries(saved))
        if (d) Object.defineProperty(globalThis, k, d);
        else delete globalThis[k];
    },
  };
}

function spin(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

test('autoLabels: route without query, engine, device class', () => {
  const g = {
    navigator: { userAgent: 'x Firefox/140', hardwareConcurrency: 2 },
    location: { pathname: '/a/b' },
  };
  assert.deepEqual(autoLabels(g), { engine: 'firefox', device: 'low', route: '/a/b' });
  assert.equal(autoLabels({ navigator: {} }).device, 'unknown');
});

test('an unsampled view adds no listener and sends nothing', () => {
  const page = stubPage({ beacon: true });
  try {
    const c = profileVisits({ endpoint: 'http://c/', sampleRate: 0.5, random: () => 0.5 });
    assert.equal(c.stats.sampled, false);
    assert.deepEqual(page.listeners, {});
  } finally {
    page.restore();
  }
});

test('a sampled view: downsampled to fit, sent at pagehide, a refused beacon counted', async () => {
  const page = stubPage({ beacon: false });
  let c;
  try {
    c = profileVisits({
      endpoint: 'http://collector.test/',
      sampleRate: 1,
      sampleInterval: 1,
      windowMs: 200,
      maxBytes: 100, // smaller than any upload: downsampled down to one sample, still sent
      labels: { release: 'v3', 'bad-name': 'x' },
    });
    assert.equal(c.stats.sampled, true);
    assert.equal(c.stats.errors, 1); // the bad label name, left out
    for (let i = 0; i < 50 && c.stats.kept < 1; i++) {
      spin(120);
      await new Promise((r) => setTimeout(r, 150));
    }
    assert.ok(c.stats.kept >= 1);
    for (let i = 0; i < 50 && !c.stats.bytes; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(c.stats.stride > 1, JSON.stringify(c.stats));
    for (const fn of page.listeners.pagehide) fn();
    assert.equal(c.stats.uploads, 1);
    assert.equal(c.stats.beaconFailures, 1);
    const [{ body }] = page.sent.beacons;
    assert.equal(body.type, 'text/plain');
    assert.equal(page.sent.fetches[0].init.keepalive, true);
    const bytes = gunzipSync(Buffer.from(await body.arrayBuffer()));
    const field = createField();
    const v = field.decode(bytes);
    assert.ok(v.samples > 0);
    assert.equal(v.labels.release, 'v3');
    assert.equal(v.labels.route, '/cart/42');
    assert.equal(v.labels.engine, 'firefox');
    assert.equal(v.labels.source, 'inspector'); // the Profiler source that sampled the view
    assert.equal(v.labels['bad-name'], undefined);
    field.free(v.trace);
  } finally {
    await c?.stop();
    page.restore();
  }
});
