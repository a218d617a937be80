// `perfshim profile` stops a script that never yields to its event loop: --duration and a
// forwarded SIGINT both end it with exit code 130 and its profile written (the stop goes through
// the inspector from a worker, not a JS signal handler), without Node's "Waiting for the
// debugger" line; a busy script with its own SIGINT handler still decides for itself.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../glue/cli/perfshim.js', import.meta.url));
const env = { ...process.env };
if (env.PERFSHIM_WASM) env.PERFSHIM_WASM = resolve(env.PERFSHIM_WASM);
const dir = mkdtempSync(join(tmpdir(), 'perfshim-cli-busy-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(
  join(dir, 'busy.mjs'),
  `performance.mark('busy:start');
process.stdout.write('ready\\n');
let x = 0;
for (;;) x += Math.sqrt(x + 1);
`,
);
writeFileSync(
  join(dir, 'own-handler.mjs'),
  `let stop = false;
process.on('SIGINT', () => { stop = true; });
process.stdout.write('ready\\n');
await new Promise((r) => setTimeout(r, 300)); // busy only after the stop: the signal decides
const end = Date.now() + 300;
while (Date.now() < end);
await new Promise((r) => setImmediate(r));
process.exitCode = stop ? 7 : 8;
`,
);

/** Run the bin in its own process group; `onReady(child)` when the script printed 'ready'. A
 *  run that outlives `guardMs` is a hang: the group is killed and the result says so. */
function perfshim(args, { onReady, guardMs = 60_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let hung = false;
    const guard = setTimeout(() => {
      hung = true;
      process.kill(-child.pid, 'SIGKILL');
    }, guardMs);
    let stdout = '',
      stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      const first = !stdout.includes('ready');
      stdout += c;
      if (first && stdout.includes('ready') && onReady) onReady(child);
    });
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolvePromise({ code, stderr, hung });
    });
  });
}

const marks = (out) =>
  JSON.parse(readFileSync(join(dir, out, 'trace.json'), 'utf8'))
    .traceEvents.filter((e) => e.cat === 'blink.user_timing')
    .map((e) => e.name);

test('--duration stops a script that never yields, and its profile is written', async () => {
  const r = await perfshim([
    'profile',
    '--duration',
    '0.5',
    '--out',
    'out-dur',
    '--top',
    '0',
    'busy.mjs',
  ]);
  assert.equal(r.hung, false, 'the script was never stopped');
  assert.equal(r.code, 130, r.stderr);
  assert.ok(marks('out-dur').includes('busy:start'));
  assert.doesNotMatch(r.stderr, /Waiting for the debugger/);
});

test('SIGINT (forwarded: not a terminal) stops a script that never yields', async () => {
  const r = await perfshim(['profile', '--out', 'out-int', '--top', '0', 'busy.mjs'], {
    onReady: (child) => child.kill('SIGINT'),
  });
  assert.equal(r.hung, false, 'the script was never stopped');
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /stopped after/);
  assert.ok(marks('out-int').includes('busy:start'));
});

test('a script with its own SIGINT handler still decides', async () => {
  const r = await perfshim(['profile', '--out', 'out-own', '--top', '0', 'own-handler.mjs'], {
    onReady: (child) => child.kill('SIGINT'),
  });
  assert.equal(r.code, 7, r.stderr);
});
