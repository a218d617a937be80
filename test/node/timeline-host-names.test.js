// getEntriesByName in a browser skips the host query for a name none of the host's own entry
// types can carry (their names are URLs or a few fixed names); a host with a type whose names
// are not known is always asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostNameFilter } from '../../glue/timeline/timeline.js';

// Chromium 156's PerformanceObserver.supportedEntryTypes (as read on this machine) without mark
// and measure.
const CHROMIUM = [
  'element',
  'event',
  'first-input',
  'interaction-contentful-paint',
  'largest-contentful-paint',
  'layout-shift',
  'long-animation-frame',
  'longtask',
  'navigation',
  'paint',
  'resource',
  'soft-navigation',
  'visibility-state',
];

test('names the host types can carry are asked for, others are not', () => {
  const may = hostNameFilter(CHROMIUM);
  for (const name of [
    'https://example.test/app.js',
    'data:,x',
    'first-paint',
    'first-contentful-paint',
    'click',
    'pointerdown',
    'self',
    'visible',
    'image-paint',
    '',
    'longtask',
    'layout-shift',
  ]) {
    assert.equal(may(name), true, name);
  }
  for (const name of ['needle', 'request-42', 'parse:start'.replace(':', '-'), 'name-7']) {
    assert.equal(may(name), false, name);
  }
});

test('a host type with unknown names means the host is always asked', () => {
  assert.equal(hostNameFilter([...CHROMIUM, 'some-future-type']), null);
  assert.equal(typeof hostNameFilter([]), 'function');
  assert.equal(hostNameFilter([])('anything'), false);
});

test('a host type named like an Object.prototype member is a type with unknown names', () => {
  // The table of known names is a plain object: its inherited members are not names.
  for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty'])
    assert.equal(hostNameFilter([...CHROMIUM, type]), null, type);
});
