// Installing onto a host whose `performance` is a plain object or has a null prototype (some
// runtimes and test environments): that object gets a real Performance interface (its prototype
// perfshim's Performance.prototype, which holds the methods and inherits from EventTarget.prototype;
// a global Performance whose constructor is illegal), keeps its identity and clock, and
// Object.prototype is never touched; a null-prototype host works for the ponyfill and install().
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
    const names = ['mark', 'measure', 'clearMarks', 'clearMeasures', 'getEntries', 'getEntriesByType',
      'getEntriesByName', 'measureUserAgentSpecificMemory', 'measureMemory'];
    out.ownKeys = Object.keys(host);
    out.inherited = names.filter((k) => typeof Performance.prototype[k] === 'function' &&
      Object.hasOwn(Performance.prototype, k) && host[k] === Performance.prototype[k]);
    out.isPerformance = [host instanceof Performance, Object.getPrototypeOf(host) === Performance.prototype,
      Object.getPrototypeOf(Performance.prototype) === EventTarget.prototype,
      Object.prototype.toString.call(host)];
    const g = Object.getOwnPropertyDescriptor(globalThis, 'Performance');
    out.global = [g.writable, g.enumerable, g.configurable, Performance.name];
    try { new Performance(); out.construct = 'constructed'; } catch (e) { out.construct = e.constructor.name; }
    out.json = Object.keys(JSON.parse(JSON.stringify(host)));
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
  assert.deepEqual(out.ownKeys, ['now'], 'the host keeps its own now() and gains no own methods');
  assert.deepEqual(
    out.inherited,
    ALL_METHODS,
    'the methods are inherited from Performance.prototype',
  );
  assert.deepEqual(out.isPerformance, [true, true, true, '[object Performance]']);
  assert.deepEqual(out.global, [true, false, true, 'Performance'], 'an interface object');
  assert.equal(out.construct, 'TypeError', 'new Performance() is an illegal constructor');
  assert.deepEqual(out.json, ['timeOrigin'], 'toJSON() is inherited');
  assert.equal(out.clock, true, "performance.now() is still the host's clock");
}

test('import auto with a plain-object performance gives that object a Performance interface', () => {
  checkInstalled(run(PLAIN, `await import(${JSON.stringify(`${glue}auto.js`)});${USE_INSTALLED}`));
});

test('install() with a plain-object performance gives that object a Performance interface', () => {
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

test('install() with a null-prototype performance gives it a Performance interface', () => {
  checkInstalled(
    run(
      NULL_PROTO,
      `
    const { install } = await import(${JSON.stringify(`${glue}index.js`)});
    install();${USE_INSTALLED}`,
    ),
  );
});

// A host object with its own copies of the methods (a test double): they would hide the inherited
// ones, so they go; the marks it had buffered are carried over.
test('install() over a plain object with its own mark/getEntriesByType: the methods are inherited', () => {
  const out = run(
    `Object.assign({ now: () => Date.now() }, (() => {
      const marks = [{ name: 'early', entryType: 'mark', startTime: Date.now() - 5, duration: 0 }];
      return { mark() {}, clearMarks() { marks.length = 0; }, getEntriesByName: () => [],
        getEntriesByType: (t) => (t === 'mark' ? marks.slice() : []) };
    })())`,
    `
    const { install } = await import(${JSON.stringify(`${glue}index.js`)});
    install();
    out.own = Object.keys(host);
    out.early = performance.getEntriesByName('early').map((e) => e.constructor.name);
    out.mark = performance.mark('x') instanceof PerformanceMark;`,
  );
  assert.deepEqual(out.own, ['now']);
  assert.deepEqual(out.early, ['PerformanceMark'], 'the host mark was carried over');
  assert.equal(out.mark, true);
  assert.deepEqual(out.protoAdded, []);
});
