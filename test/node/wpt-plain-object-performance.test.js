// WPT's user-timing and performance-timeline .any.js tests (test/wpt/fixtures) over a plain-object
// `performance` with perfshim installed pass at least as many subtests as Node's own performance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const wpt = fileURLToPath(new URL('../wpt/', import.meta.url));
const FILES = ['user-timing', 'performance-timeline'].flatMap((dir) =>
  readdirSync(`${wpt}fixtures/${dir}`)
    .filter((f) => f.endsWith('.any.js'))
    .map((f) => `${dir}/${f}`),
);

/** Each file in a fresh process (runner: test/wpt/run-file.mjs); four at a time (they mostly
 *  wait on the tests' timers). */
async function runAll(mode) {
  const out = [];
  const queue = [...FILES];
  const worker = async () => {
    for (let file; (file = queue.shift()); ) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [`${wpt}run-file.mjs`, mode, file],
        { maxBuffer: 16 << 20 },
      );
      out.push(JSON.parse(stdout.trim().split('\n').at(-1)));
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return out;
}

const passed = (runs) => runs.flatMap((r) => r.results).filter((t) => t.status === 0);
// Subtests that time the clock (a mark within 20 ms of now(), the clock's granularity): compared
// apart from the rest, so that a loaded machine cannot flip the comparison.
const TIMED = /startTime is approximately correct|Verifies the resolution/;
const untimed = (runs) => passed(runs).filter((t) => !TIMED.test(t.name));
const byFile = (runs) => Object.fromEntries(runs.map((r) => [r.file, r]));

test('WPT over a plain-object performance + perfshim passes at least what Node passes', async () => {
  const [own, plain] = [await runAll('node'), await runAll('plain')];
  const total = (runs) => runs.reduce((n, r) => n + r.results.length, 0);
  console.log(
    `WPT subtests passed: Node's own performance ${passed(own).length}/${total(own)}, ` +
      `plain object + perfshim ${passed(plain).length}/${total(plain)}`,
  );
  const mine = byFile(plain);
  for (const r of own) {
    const p = mine[r.file];
    console.log(
      `  ${r.file}: Node ${passed([r]).length}/${r.results.length}, ` +
        `perfshim ${passed([p]).length}/${p.results.length}`,
    );
  }
  assert.ok(untimed(plain).length >= untimed(own).length, 'untimed subtests');
  // The Performance interface is inherited, as IDL wants (the methods were own properties).
  for (const file of ['user-timing/idlharness.any.js', 'performance-timeline/idlharness.any.js']) {
    const failed = mine[file].results.filter((t) => t.status !== 0);
    assert.deepEqual(
      failed.filter((t) => /inherit property/.test(t.name)).map((t) => t.name),
      [],
      file,
    );
  }
});
