// The built files (dist/: ES module, CommonJS, classic script) keep every public class's WebIDL
// name (`PerformanceEntry.name === 'PerformanceEntry'`) and every exported function's name
// (`install.name === 'install'`): the bundler must not rename them (the classic script minifies
// identifiers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

// Run in a child process per build: every copy of perfshim in one realm shares the first one's
// classes, so a second build loaded here would report the first one's names.
const report = `
  const names = {};
  for (const [k, v] of Object.entries(m)) {
    if (typeof v === 'function') names[k] = v.name;
  }
  names.Performance = Object.getPrototypeOf(m.performance).constructor.name;
  console.log(JSON.stringify(names));`;
const loaders = {
  'ES module (dist/perfshim.mjs)': [
    '--input-type=module',
    '-e',
    `import * as m from ${JSON.stringify(`${root}dist/perfshim.mjs`)};${report}`,
  ],
  'CommonJS (dist/perfshim.cjs)': [
    '-e',
    `const m = require(${JSON.stringify(`${root}dist/perfshim.cjs`)});${report}`,
  ],
  'classic script (dist/perfshim.auto.js)': [
    '-e',
    `
    require('node:vm').runInThisContext(require('node:fs').readFileSync(${JSON.stringify(`${root}dist/perfshim.auto.js`)}, 'utf8'));
    const m = globalThis.perfshim;${report}`,
  ],
};

const expected = [
  'PerformanceEntry',
  'PerformanceMark',
  'PerformanceMeasure',
  'PerformanceObserver',
  'PerformanceObserverEntryList',
  'Profiler',
  'Performance',
];

for (const [build, args] of Object.entries(loaders)) {
  test(`${build}: every exported class is named after its interface`, () => {
    const names = JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }));
    for (const k of expected)
      assert.ok(
        k in names || (build.includes('timeline') && k === 'Profiler'),
        `${build} exports ${k}`,
      );
    for (const k of ['install', 'setBufferLimit', 'droppedEntries'])
      assert.ok(k in names, `${build} exports ${k}`);
    for (const [k, name] of Object.entries(names)) assert.equal(name, k, `${k}.name`);
  });
}
