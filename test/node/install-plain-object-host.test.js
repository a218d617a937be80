// Installing onto a host whose `performance` is a plain object or has a null prototype (some
// runtimes and test environments): perfshim's methods go onto that object, never onto
// Object.prototype, and a null-prototype host works for the ponyfill and for install().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const glue = fileURLToPath(new URL('../../glue/', import.meta.url));

// Each scenario in its own process: the host is captured when perfshim is first imported.
function run(host, body) {
  const src = `
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const host = ${host};
    Object.defineProperty(globalThis, 'performance', { value: host, writable: true, configurable: true });
    const out = {};
    ${body}
    out.protoAdded = Object.getOwnPropertyNames(Object.prototype).sort().filter((k) => !before.includes(k));
    out.forIn = []; for (const k in {}) out.forIn.push(k);
    try { structuredClone({ a: 1 }); out.cloneOk = true; } catch (e) { out.cloneOk = e.name; }
    console.log(JSON.stringify(out));`;
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', src], {
    encoding: 'utf8',
  });
  return JSON.parse(stdout);
}

const PLAIN = `{ now: () => Date.now() }`;
const NULL_PROTO = `Object.assign(Object.create(null), { now: () => Date.now() })`;

// After install: globalThis.performance works with perfshim's methods, its clock is the host's.
const USE_INSTALLED = `
    out.same = globalThis.performance === host;
    const m = performance.mark('a', { detail: { x: 1 } });
    out.mark = [m.constructor.name, m.detail.x];
    out.found = performance.getEntriesByName('a').length;
    out.measured = performance.measure('a-b', 'a').name;
    out.ownMethods = ['mark', 'measure', 'clearMarks', 'clearMeasures', 'getEntries', 'getEntriesByType',
      'getEntriesByName', 'measureUserAgentSpecificMemory', 'measureMemory'].filter((k) => Object.hasOwn(host, k));
    out.clock = Math.abs(performance.now() - Date.now()) < 1000;`;
const ALL_METHODS = [
  'mark',
  'measure',
  'clearMarks',
  'clearMeasures',
  'getEntries',
  'getEntriesByType',
  'getEntriesByName',
  'measureUserAgentSpecificMemory',
  'measureMemory',
];

function checkInstalled(out) {
  assert.deepEqual(out.protoAdded, [], 'nothing defined on Object.prototype');
  assert.deepEqual(out.forIn, [], 'for…in over {} sees nothing');
  assert.equal(out.cloneOk, true, 'structuredClone of an ordinary object works');
  assert.equal(out.same, true);
  assert.deepEqual(out.mark, ['PerformanceMark', 1]);
  assert.equal(out.found, 1);
  assert.equal(out.measured, 'a-b');
  assert.deepEqual(out.ownMethods, ALL_METHODS, "the methods are the host object's own");
  assert.equal(out.clock, true, "performance.now() is still the host's clock");
}

test('import auto with a plain-object performance installs onto that object only', () => {
  checkInstalled(run(PLAIN, `await import(${JSON.stringify(`${glue}auto.js`)});${USE_INSTALLED}`));
});

test('install() with a plain-object performance installs onto that object only', () => {
  checkInstalled(
    run(
      PLAIN,
      `
    const { install } = await import(${JSON.stringify(`${glue}index.js`)});
    out.installed = install().installed;${USE_INSTALLED}`,
    ),
  );
});

test('a null-prototype performance: the ponyfill import works and uses the host clock', () => {
  const out = run(
    NULL_PROTO,
    `
    const p = await import(${JSON.stringify(`${glue}index.js`)});
    const m = p.performance.mark('ponyfill');
    out.ok = m instanceof p.PerformanceMark && p.performance.getEntriesByName('ponyfill')[0] === m;
    out.clock = Math.abs(p.performance.now() + p.performance.timeOrigin - Date.now()) < 1000;
    out.untouched = Object.keys(host);`,
  );
  assert.equal(out.ok, true);
  assert.equal(out.clock, true);
  assert.deepEqual(out.untouched, ['now'], 'the ponyfill touches no globals');
  assert.deepEqual(out.protoAdded, []);
});

test('install() with a null-prototype performance installs onto that object', () => {
  checkInstalled(
    run(
      NULL_PROTO,
      `
    const { install } = await import(${JSON.stringify(`${glue}index.js`)});
    install();${USE_INSTALLED}`,
    ),
  );
});
