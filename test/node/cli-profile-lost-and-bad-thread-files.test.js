// `perfshim profile` when the profile files go wrong: a script that removes the profile
// directory keeps its own exit code and both processes say the profile is lost (no throw); a
// thread file that cannot be converted, or is not a profile at all, is skipped with a message
// while the other threads' files are written; a thread name such as `../../x` writes nothing
// outside --out.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../glue/cli/perfshim.js', import.meta.url));
const env = { ...process.env };
if (env.PERFSHIM_WASM) env.PERFSHIM_WASM = resolve(env.PERFSHIM_WASM);
const dir = mkdtempSync(join(tmpdir(), 'perfshim-cli-files-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const emptyTrace = { resources: [], frames: [], stacks: [], samples: [] };
/** A thread file the script plants beside its own: the preload's shape, `patch` applied. */
const planted = (patch) =>
  JSON.stringify({
    pid: 1,
    isRoot: false,
    threadId: 1,
    isMainThread: true,
    name: 'process-1-main',
    url: '',
    timeOrigin: Date.now(),
    interval: 1,
    entries: [],
    trace: emptyTrace,
    ...patch,
  });

const files = {
  'removes-dir.mjs': `import { rmSync } from 'node:fs';
performance.mark('before-rm');
rmSync(process.env.PERFSHIM_PROFILE_DIR, { recursive: true, force: true });
process.exitCode = 4;
`,
  'plants.mjs': `import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
const d = process.env.PERFSHIM_PROFILE_DIR;
const planted = ${JSON.stringify({
    'thread-1-1.json': planted({
      trace: { ...emptyTrace, samples: [{ timestamp: 0, stackId: 7 }] },
    }),
    'thread-2-1.json': planted({ pid: 2, name: '../../escaped' }),
    'thread-3-1.json': JSON.stringify([1, 2, 3]),
  })};
for (const [f, text] of Object.entries(planted)) writeFileSync(join(d, f), text);
performance.mark('planted');
`,
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);

function perfshim(args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stderr }));
  });
}

test('a script that removes the profile directory keeps its exit code; the loss is said', async () => {
  const r = await perfshim(['profile', '--out', 'out-rm', 'removes-dir.mjs']);
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /the profile of main could not be written \(ENOENT.*it is lost/);
  assert.match(r.stderr, /the profile directory .* is gone \(ENOENT; removed by the script\?\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace: nothing threw');
  assert.equal(existsSync(join(dir, 'out-rm')), false);
});

test('bad thread files are skipped, the good ones written, nothing outside --out', async () => {
  const out = join('nest', 'ed', 'out-bad');
  const r = await perfshim(['profile', '--out', out, '--format', 'trace,cpuprofile', 'plants.mjs']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /thread-2-1\.json: not a profile this command wrote \(a thread name/);
  assert.match(r.stderr, /thread-3-1\.json: not a profile this command wrote/);
  assert.match(r.stderr, /process-1-main: its profile could not be converted \(.*\), left out/);
  assert.deepEqual(readdirSync(join(dir, out)).sort(), ['main.cpuprofile', 'trace.json']);
  assert.equal(existsSync(join(dir, 'nest', 'escaped.cpuprofile')), false);
  assert.deepEqual(readdirSync(join(dir, 'nest')), ['ed']);
});
