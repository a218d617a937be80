// `perfshim instrument` meets real inputs and paths: an output folder that does not exist is
// created; names in the input like the transform's (`__pst`, `eval("var __pst")` …) give output
// that loads; 300 nested functions exit 1 with a clear message instead of aborting the process;
// a file merely containing the marker text is instrumented.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../glue/cli/perfshim.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'perfshim-cli-limits-'));
const cli = (...args) =>
  spawnSync(process.execPath, [CLI, 'instrument', ...args], { encoding: 'utf8' });

test('an output folder that does not exist is created', () => {
  const input = join(dir, 'a.js');
  writeFileSync(input, 'function a() { return Math.random(); }\n');
  const out = join(dir, 'not', 'there', 'a.js');
  const r = cli(input, '-o', out);
  assert.equal(r.status, 0, r.stderr);
  assert.match(readFileSync(out, 'utf8'), /perfshim:instrumented/);
  assert.ok(JSON.parse(readFileSync(`${out}.map`, 'utf8')).mappings);
});

test("names like the transform's in the input: the output loads and runs as the input", () => {
  const input = join(dir, 'names.js');
  const src =
    'function a(__pst) { var __psv = 1; __psx: for (;;) break __psx; return __pst + __psv; }\n' +
    'function b() { let __ps = 2; { const __pso = 3; eval("var __pst = 4"); return __ps + __pso + __pst; } }\n' +
    'globalThis.r = [a(1), b()];\n';
  writeFileSync(input, src);
  const out = join(dir, 'names.out.js');
  const r = cli(input, '-o', out, '--no-source-map');
  assert.equal(r.status, 0, r.stderr);
  const ctx = vm.createContext({});
  vm.runInContext(readFileSync(out, 'utf8'), ctx);
  assert.deepEqual([...vm.runInContext('r', ctx)], [2, 9]);
});

test('300 nested functions: exit 1 and a message, not an abort', () => {
  let s = 'x';
  for (let i = 0; i < 300; i++) s = `(function () { return ${s}; })()`;
  const input = join(dir, 'deep.js');
  writeFileSync(input, `var x = 1;\nvar r = ${s};\n`);
  const r = cli(input, '-o', join(dir, 'deep.out.js'));
  assert.equal(r.signal, null);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /perfshim instrument: .*deep\.js.*nested more than \d+ (brackets )?deep/);
});

test('a file that merely contains the marker text is instrumented', () => {
  const input = join(dir, 'marker.js');
  writeFileSync(
    input,
    'const doc = "/*perfshim:instrumented*/";\nfunction f() { return doc.trim(); }\n',
  );
  const r = cli(input, '-o', join(dir, 'marker.out.js'));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /1 functions instrumented/);
});
