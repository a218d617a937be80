// Eager size budgets of the committed bundles (gzip -9 of the file a user loads, wasm included):
// the perfshim/timeline builds and the full entry. Each is held to its ceiling (no growth); the
// issue-9 goal is reported next to it while not met (see the README's measured figures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

// [file, ceiling enforced now (KB), goal (KB)]
const BUDGETS = [
  // 18.1-18.3 KB before issue 9; now 14.5-14.8 KB: the 8.1 KB timeline core embedded one
  // character per byte (tools/embed-wasm.mjs) with our own allocator (src/alloc.c), and the
  // timeline bundles keep no esbuild names and leave out the io's transfers and the full entry's
  // install features. Goal met: the goal is the ceiling.
  // The classic script grew to 15.05 KB since (the host probes and the realm's install), then
  // to 16.8 KB by issue 25's page-load work: its modules run on first use (esbuild's lazy module
  // wrappers and the member list, +1.55 KB) and its core is base64 (+0.15 KB), for 2-3x less
  // load time (bench/page-load.mjs). Then 17.7 KB: the first-use modules are the text of a
  // function compiled on first use (glue/classic.js firstUseModules; +0.9 KB: the load part's
  // modules handed over by name, esbuild's interop for the live ones, the two parts' names
  // mangled apart), which took Firefox's load from 4.4 to 1.7 ms. Held there until trimmed.
  ['dist/perfshim.timeline.auto.js', 17.8, 15],
  ['dist/timeline.mjs', 15, 15],
  ['dist/timeline.cjs', 15, 15],
  // 77.3 / 77.7 KB before issue 9's size work; now 37.6 / 37.9 KB: the core is -Oz, without
  // cJSON's printf/strtod, embedded one character per byte, with our own allocator, and Measure
  // Memory is loaded on first use (dist/perfshim-memory.mjs, not eager).
  ['dist/perfshim.mjs', 40, 40],
  ['dist/perfshim.cjs', 40, 40],
  // The classic script is one self-contained file (Measure Memory inside: a page may inline it
  // or concatenate it into another script, where a sibling file cannot be found): 48.6 KB;
  // 49.2 KB since stop 21, which added leaving perfshim's own frames out of a host profiler's
  // trace (+0.57 KB: the core's hidden scripts and the shim's ownScripts) and the Firefox
  // export's names of anonymous functions and the .cpuprofile's endTime (+0.12 KB).
  // 50.4 KB by issue 25 (the Bun and Deno sources, Measure Memory in Node 26); now 47.1 KB: the
  // browser build leaves the Node, Bun and Deno sources out, and the script minifies its
  // identifiers with no esbuild names (every byte of it is parsed on every page load, profiled
  // or not; the entry's functions are named again at install).
  // 51.9 KB by issue 25's page-load work: the entry's modules run on first use (esbuild's lazy
  // module wrappers, the member list, the Measure Memory forwarders, the Profiler's sources loaded on first use: +2.5 KB) and the cores are
  // base64, which Chromium's parser scans 5x faster than the escaped byte string (+2.2 KB).
  // 52.03 KB with probes.10's runtime (the probes the instrumentation source loads).
  // 52.9 KB with the first-use modules as text (as perfshim.timeline.auto.js, +0.9 KB), which
  // took Firefox's load from 10.3 to 3.8 ms and Chromium's from 5.4 to 3.0. 53.02 KB with the
  // log sampler's records written inline by the probes (Firefox's profiling 1.88 -> 1.68x).
  // 53.12 KB with probes.13's log sampler (pops make no call: the logger places a fall at the
  // next push and cools the frame the stack fell back to; Firefox's profiling of Preact 1.70 ->
  // 1.30x, of marked 1.56 -> 1.47x), after 0.25 KB of esbuild's name wrappers left the ES builds
  // (this script has none).
  ['dist/perfshim.auto.js', 53.2, 47.5],
  // Measure Memory, loaded on the first call: its glue and its own small core (12.5 KB). A loader
  // helper whose default argument is the full core once pulled that in too (28.6 KB).
  ['dist/perfshim-memory.mjs', 13.5, 13.5],
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
