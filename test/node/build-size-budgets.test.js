// Eager size budgets of the committed bundles (gzip -9 of the file a user loads, wasm included):
// the perfshim/timeline builds and the full entry. Each is held to its ceiling (no growth); the
// issue-9 goal is reported next to it while not met (see the README's measured figures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

// [file, ceiling enforced now (KB), goal (KB)]
const BUDGETS = [
  // 18.1-18.3 KB before issue 9; 16.8-17.0 KB with the 9.6 KB timeline core embedded one
  // character per byte (tools/embed-wasm.mjs); now 15.3-15.5 KB: the timeline bundles keep no
  // esbuild names (-0.7 KB) and leave out the io's transfers (-0.6 KB), WASI imports and the
  // full entry's install features. The rest: ~10.6 KB of glue, the core 4.9 KB.
  ['dist/perfshim.timeline.auto.js', 15.5, 15],
  ['dist/timeline.mjs', 15.3, 15],
  ['dist/timeline.cjs', 15.5, 15],
  // 77.3 / 77.9 KB before issue 9's size work; now 37.7 / 38.1 KB: the core is -Oz, without
  // cJSON's printf/strtod, embedded one character per byte, and Measure Memory is loaded on
  // first use (dist/perfshim-memory.mjs, not eager).
  ['dist/perfshim.mjs', 40, 40],
  ['dist/perfshim.cjs', 40, 40],
  // The classic script is one self-contained file (Measure Memory inside: a page may inline it
  // or concatenate it into another script, where a sibling file cannot be found): 50.1 KB.
  ['dist/perfshim.auto.js', 50.5, 50.5],
];

for (const [file, ceiling, goal] of BUDGETS) {
  test(`${file} stays within ${ceiling} KB gzipped (goal ${goal} KB)`, (t) => {
    const kb =
      gzipSync(readFileSync(new URL(`../../${file}`, import.meta.url)), { level: 9 }).length / 1024;
    assert.ok(
      kb <= ceiling,
      `${file}: ${kb.toFixed(1)} KB gzipped, over its ${ceiling} KB ceiling`,
    );
    if (kb > goal)
      t.diagnostic(`${file}: ${kb.toFixed(1)} KB gzipped, goal ${goal} KB not met yet`);
  });
}
