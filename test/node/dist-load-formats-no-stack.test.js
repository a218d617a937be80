// Loading perfshim formats no stack trace: V8 formats a stack by reparsing the script for its
// source positions, which cost the classic script 10 ms of a Chromium page's load (issue 25).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
// V8 calls Error.prepareStackTrace when a stack is first formatted (read).
const COUNT = 'let formatted = 0; Error.prepareStackTrace = (e) => (formatted++, String(e));';
const LOADS = {
  'dist/perfshim.auto.js (classic script)': `require('node:vm').runInThisContext(require('node:fs').readFileSync(${JSON.stringify(`${root}dist/perfshim.auto.js`)}, 'utf8'));`,
  'dist/perfshim.cjs, installed': `require(${JSON.stringify(`${root}dist/perfshim.cjs`)}).install();`,
};

for (const [name, load] of Object.entries(LOADS)) {
  test(`${name}: loading it formats no stack trace`, () => {
    const env = { ...process.env };
    delete env.PERFSHIM_WASM;
    const out = execFileSync(process.execPath, ['-e', `${COUNT}${load}console.log(formatted);`], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    assert.equal(out.trim(), '0');
  });
}
