// The full bundles (dist/perfshim.mjs, .cjs, .auto.js) carry the core deflated and inflate it on
// first use, and leave Measure Memory out: dist/perfshim-memory.mjs is import()ed on the first
// measureUserAgentSpecificMemory() call, from ESM and CommonJS alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (f) => readFileSync(`${root}${f}`, 'utf8');
const BUNDLES = ['dist/perfshim.mjs', 'dist/perfshim.cjs', 'dist/perfshim.auto.js'];

test('each full bundle embeds the core deflated, not as plain base64 of the wasm', () => {
  const plain = readFileSync(`${root}wasm/perfshim.wasm`).toString('base64').slice(0, 64);
  for (const f of BUNDLES) {
    const text = read(f);
    assert.ok(!text.includes(plain), `${f} holds the raw module's base64`);
    // The wasm magic (\0asm) starts every raw module's base64 with AGFzbQ.
    assert.ok(!/["']AGFzbQ/.test(text), `${f} holds a raw module`);
  }
});

test("Measure Memory is not in the eager bundles: they import('./perfshim-memory.mjs')", () => {
  const memoryCore = readFileSync(`${root}wasm/perfshim-memory.wasm`).toString('base64');
  for (const f of BUNDLES) {
    const text = read(f);
    assert.ok(text.includes('import("./perfshim-memory.mjs")'), `${f} loads the part on first use`);
    assert.ok(!text.includes(memoryCore.slice(100, 164)), `${f} holds the Measure Memory core`);
  }
  assert.ok(read('dist/perfshim-memory.mjs').includes(memoryCore.slice(100, 164)));
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
  test(`${name}: the first mark inflates the core; measureUserAgentSpecificMemory loads its part`, () => {
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
