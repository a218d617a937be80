// `perfshim profile` progress: on a terminal one line rewritten in place (elapsed time, the main
// thread's samples so far, buffered marks and measures), cleared before the summary; plain lines
// (no carriage returns) otherwise; the live sample count grows and never passes the final one.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../glue/cli/profile.js';

const dir = mkdtempSync(join(tmpdir(), 'perfshim-progress-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const script = join(dir, 'slow.mjs');
writeFileSync(
  script,
  `for (let i = 0; i < 6; i++) {
  performance.mark('m' + i);
  await new Promise((r) => setTimeout(r, 150));
}
`,
);

function collector() {
  const s = {
    text: '',
    write(chunk) {
      s.text += chunk;
      return true;
    },
  };
  return s;
}

test('a terminal gets one line rewritten in place, cleared before the summary', async () => {
  const stderr = collector();
  const code = await run(['--out', join(dir, 'tty'), '--top', '3', script], {
    stderr,
    isTTY: true,
  });
  assert.equal(code, 0, stderr.text);
  assert.match(
    stderr.text,
    /\r\x1b\[Kperfshim: \d+\.\d s, sampling every 1 ms, (\d+ samples on the main thread, )?\d+ marks\/measures buffered/,
  );
  const summary = stderr.text.indexOf('perfshim: done after');
  assert.ok(summary > 0);
  assert.equal(
    stderr.text.slice(summary - 4, summary),
    '\r\x1b[K',
    'the progress line is cleared first',
  );
  assert.match(stderr.text, /6 marks\/measures/);
});

test('not a terminal: plain lines only', async () => {
  const stderr = collector();
  const code = await run(['--out', join(dir, 'plain'), script], { stderr, isTTY: false });
  assert.equal(code, 0, stderr.text);
  assert.doesNotMatch(stderr.text, /\r|\x1b/);
  assert.match(stderr.text, /^perfshim: profiling .*slow\.mjs every 1 ms$/m);
  assert.match(
    stderr.text,
    /^perfshim: \d+\.\d s, sampling every 1 ms, (\d+ samples on the main thread, )?\d+ marks\/measures buffered$/m,
  );
  assert.match(stderr.text, /^ {2}.*plain\/trace\.json$/m);
});

test('the live sample count grows while the script runs and stays within the final count', async () => {
  const busy = join(dir, 'busy.mjs');
  writeFileSync(
    busy,
    `const spin = (ms) => { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; };
for (let i = 0; i < 40; i++) {
  spin(30);
  await new Promise((r) => setTimeout(r, 5));
}
`,
  );
  const stderr = collector();
  const code = await run(['--out', join(dir, 'live'), busy], { stderr, isTTY: true });
  assert.equal(code, 0, stderr.text);
  const live = [...stderr.text.matchAll(/(\d+) samples on the main thread/g)].map((m) =>
    Number(m[1]),
  );
  assert.ok(live.length >= 3, `progress lines with a count: ${live.length}`);
  assert.deepEqual(
    live,
    [...live].sort((a, b) => a - b),
    'the count never goes down',
  );
  assert.ok(live.at(-1) > 0, 'samples were counted while the script ran');
  const final = Number(/done after .*?, (\d+) samples/.exec(stderr.text)[1]);
  assert.ok(live.at(-1) <= final, `live ${live.at(-1)} <= final ${final}`);
});
