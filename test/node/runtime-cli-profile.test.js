// `perfshim profile` in the runtime the suite runs in: under Bun and Deno (which report a Node
// version and would start themselves with Node's --import preload) it starts nothing and says
// what is needed (Node, or the Profiler in the script), exit code 2; under Node it reports no
// shortfall (the profile-* suites run it there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, runtimeShortfall } from '../../glue/cli/profile.js';

const runtime = process.versions.bun ? 'Bun' : typeof Deno === 'object' ? 'Deno' : 'Node';

test(`perfshim profile in ${runtime}: ${runtime === 'Node' ? 'no shortfall' : 'a clear message, exit code 2, nothing started'}`, async () => {
  if (runtime === 'Node') {
    assert.equal(runtimeShortfall(), null);
    return;
  }
  let text = '';
  const stderr = { write: (s) => (text += s), isTTY: false };
  const code = await run(['--', 'no-such-script-needed.js'], { stderr });
  assert.equal(code, 2);
  assert.match(text, new RegExp(`runs scripts under Node, and this is ${runtime} \\d`));
  assert.match(
    text,
    /node \.\/node_modules\/perfshim\/glue\/cli\/perfshim\.js profile -- script\.js/,
  );
  assert.match(text, /new Profiler\(/);
  assert.doesNotMatch(text, /profiling/, 'nothing was started');
});

test('the message names the runtime from its versions', () => {
  assert.equal(runtimeShortfall({ node: '22.0.0' }), null);
  assert.match(runtimeShortfall({ node: '24.3.0', bun: '1.4.4' }), /this is Bun 1\.4\.4:/);
  assert.match(runtimeShortfall({ node: '24.2.0', deno: '2.9.6' }), /this is Deno 2\.9\.6:/);
});
