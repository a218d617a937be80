// The module bundles embed their cores as one character per byte in an ASCII file, the classic
// scripts as base64 (scanned faster by a page's parser: issue 25). The ESM and CommonJS
// entries leave Measure Memory out: dist/perfshim-memory.mjs is import()ed on the first
// measureUserAgentSpecificMemory() call; what only Bun and Deno need (their Profiler and Measure
// Memory sources) is dist/perfshim-bun-deno.mjs, imported in those runtimes only. The classic
// script is one self-contained file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (f) => readFileSync(`${root}${f}`, 'utf8');
const BUNDLES = ['dist/perfshim.mjs', 'dist/perfshim.cjs'];

test('each bundle is ASCII; modules embed their cores as bytes, classic scripts as base64', () => {
  const CLASSIC = ['dist/perfshim.auto.js', 'dist/perfshim.timeline.auto.js'];
  for (const f of [...BUNDLES, 'dist/perfshim-memory.mjs', ...CLASSIC]) {
    const code = read(f).split('\n').slice(1).join('\n');
    // A classic script is decoded with the page's charset: only ASCII reads the same in all.
    assert.ok(/^[\x00-\x7f]*$/.test(code), `${f} has non-ASCII characters`);
    // The wasm magic (\0asm) starts a module's base64 with AGFzbQ; the byte string with \0asm.
    const base64 = /["']AGFzbQ[A-Za-z0-9+/]+=*["']/.test(code);
    const bytes = code.includes('`\\0asm\\x01\\0\\0\\0');
    if (CLASSIC.includes(f)) assert.ok(base64 && !bytes, `${f} embeds a core as bytes`);
    else assert.ok(bytes && !base64, `${f} embeds a core as base64`);
  }
});

/** The file an import() in `text` loads from beside it ("./perfshim-"+"memory.mjs": a sum, which
 *  Rollup leaves alone, so that its IIFE builds do not fail: package-iife-builds). */
const imports = (text) =>
  [...text.matchAll(/import\(("[^"]*"(?:\+"[^"]*")*)\)/g)].map((m) =>
    JSON.parse(`[${m[1].replaceAll('+', ',')}]`).join(''),
  );

test("Measure Memory is not in the eager bundles: they import('./perfshim-memory.mjs')", () => {
  // The Measure Memory core's one export name is plain ASCII in the embedded bytes.
  for (const f of BUNDLES) {
    const text = read(f);
    assert.ok(imports(text).includes('./perfshim-memory.mjs'), `${f} loads the part on first use`);
    assert.ok(!text.includes('ps_memory_build'), `${f} holds the Measure Memory core`);
  }
  assert.ok(read('dist/perfshim-memory.mjs').includes('ps_memory_build'));
  assert.ok(imports(read('dist/perfshim.browser.mjs')).includes('./perfshim-memory.browser.mjs'));
});

test("Bun's and Deno's sources are in dist/perfshim-bun-deno.mjs only, imported from beside", () => {
  // Strings only those sources hold: the Bun/Deno sampler's Deno timers, Deno's memory call,
  // Bun's realm scope.
  const OWN = ['unrefTimer', 'Deno.memoryUsage', 'BunMainThread'];
  for (const f of [...BUNDLES, 'dist/perfshim-memory.mjs']) {
    const text = read(f);
    assert.ok(imports(text).includes('./perfshim-bun-deno.mjs'), `${f} imports the part`);
    for (const s of OWN) assert.ok(!text.includes(s), `${f} holds ${s}`);
  }
  const part = read('dist/perfshim-bun-deno.mjs');
  for (const s of OWN) assert.ok(part.includes(s), `the part lacks ${s}`);
  for (const f of ['dist/perfshim.browser.mjs', 'dist/perfshim-memory.browser.mjs'])
    assert.ok(!imports(read(f)).includes('./perfshim-bun-deno.mjs'), `${f} imports the part`);
});

test('the classic script carries Measure Memory inside (it may be inlined or concatenated)', () => {
  const text = read('dist/perfshim.auto.js');
  assert.ok(!text.includes('perfshim-memory.mjs'), 'the classic script imports a sibling file');
  assert.ok(text.includes('ps_memory_build'));
});

// In a child process per build: one realm per process, shared by every copy of perfshim.
const MEASURE = `
  const p = m.performance;
  p.mark('a');
  const marks = p.getEntriesByName('a').length;
  p.measureUserAgentSpecificMemory().then((r) => {
    console.log(JSON.stringify({ marks, bytes: r.bytes, entries: r.breakdown.length,
      wasm: r.breakdown.some((e) => e.types.includes('WebAssembly')) }));
  });`;
const LOADERS = {
  'ES module': [
    '--input-type=module',
    '-e',
    `import * as m from ${JSON.stringify(`${root}dist/perfshim.mjs`)};${MEASURE}`,
  ],
  CommonJS: ['-e', `const m = require(${JSON.stringify(`${root}dist/perfshim.cjs`)});${MEASURE}`],
};

for (const [name, args] of Object.entries(LOADERS)) {
  test(`${name}: the first mark instantiates the core; measureUserAgentSpecificMemory loads its part`, () => {
    const env = { ...process.env };
    delete env.PERFSHIM_WASM; // the bundle's own embedded cores
    delete env.PERFSHIM_MEMORY_WASM;
    const out = JSON.parse(
      execFileSync(process.execPath, args, { cwd: root, env, encoding: 'utf8' }),
    );
    assert.equal(out.marks, 1);
    assert.ok(Number.isSafeInteger(out.bytes) && out.bytes > 0, JSON.stringify(out));
    assert.ok(out.entries > 1);
    assert.equal(out.wasm, true, "the realm's core is measured");
  });
}

test("the timeline classic script's load part is the host capture and the install alone", () => {
  // Every page view compiles and runs the load part (issue 25); the rest is the first-use text,
  // one string literal. Of glue/host only native.js belongs there: the error table
  // (errors.js), the WebIDL helpers (webidl.js) and host.js's probes wait for the first use.
  const text = read('dist/perfshim.timeline.auto.js');
  const literals = text.match(/'function\((?:[^'\\]|\\.)*'/g);
  assert.equal(literals.length, 1, 'one first-use text');
  const loadPart = text.replace(literals[0], "''");
  for (const atLoad of ['perfshim-probe', 'getEntriesByName', 'perfshim.firstUse'])
    assert.ok(loadPart.includes(atLoad), `the load part lacks ${atLoad}`);
  const later = {
    'errors.js': 'out of memory in the perfshim core',
    'webidl.js': 'Cannot convert a Symbol value to a string',
    'host.js': 'domContentLoadedEventStart',
  };
  for (const [module, s] of Object.entries(later)) {
    assert.ok(!loadPart.includes(s), `the load part holds ${module}`);
    assert.ok(literals[0].includes(s), `the first-use text lacks ${module}`);
  }
  assert.ok(loadPart.length < 4096, `the load part is ${loadPart.length} bytes`);
});
