// A host profiler's trace shows none of perfshim's own frames (as a native Profiler shows none of
// its implementation's; the WPT cross-origin-script tests expect no resource but the page's):
// neither the Profiler's start and stop nor the inspector calls they make, while the user's own
// functions, those perfshim calls back included, keep theirs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getProfiler } from '../../glue/profiler/profiler.js';
import { ownScripts } from '../../glue/profiler/profiler-trace.js';
import { PerformanceObserver, performance } from '../../glue/index.js';
import { spinFor } from './fixtures/profiler-work.mjs';
import { assertTraceInvariants, framesOf } from './profiler-helpers.mjs';

const ROOT = new URL('../../', import.meta.url).href;
const Profiler = getProfiler();

test("perfshim's own scripts are found from where its code runs", () => {
  const glue = `Error\n    at ownScripts (${ROOT}glue/profiler/profiler-trace.js:31:3)\n    at x (${ROOT}glue/host/loader.js:1:1)`;
  assert.equal(ownScripts(glue), `${ROOT}glue/\n${ROOT}dist/`);
  // CommonJS: a path, named by its file: URL in V8's profiles.
  assert.equal(
    ownScripts(
      'Error\n    at Object.<anonymous> (/srv/my app/node_modules/perfshim/dist/perfshim.cjs:9:1)',
    ),
    'file:///srv/my%20app/node_modules/perfshim/glue/\nfile:///srv/my%20app/node_modules/perfshim/dist/',
  );
  // The classic build served on its own: that script only, even in a site's dist/ folder,
  // which holds the site's own code too; Firefox's stack format too.
  assert.equal(
    ownScripts('ownScripts@https://cdn.example/npm/perfshim.auto.js:2:100\n'),
    'https://cdn.example/npm/perfshim.auto.js',
  );
  assert.equal(
    ownScripts('Error\n    at https://example.test/dist/perfshim.auto.js:1:5'),
    'https://example.test/dist/perfshim.auto.js',
  );
  // The ES module sources served as they are: their folder.
  assert.equal(
    ownScripts(
      'Error\n    at ownScripts (https://example.test/vendor/perfshim/glue/profiler/profiler-trace.js:30:3)',
    ),
    'https://example.test/vendor/perfshim/glue/',
  );
  // Bundled into someone else's file: its frames cannot be told apart, so none is hidden.
  assert.equal(ownScripts('Error\n    at https://example.test/assets/app.js:1:5'), '');
  assert.equal(ownScripts('no position at all'), '');
});

test("a Node profile holds the user's frames and none of perfshim's or of the inspector calls it makes", async () => {
  const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
  // perfshim calls this back from its own queued task: the callback keeps its frames.
  let called = false;
  const po = new PerformanceObserver(function observerCallback() {
    called = true;
    spinFor(60);
  });
  po.observe({ type: 'mark' });
  performance.mark('go');
  spinFor(120);
  await new Promise((resolve) => setTimeout(() => setImmediate(resolve), 20)); // after the observer's task
  const t = await p.stop();
  po.disconnect();
  assert.ok(called);
  assertTraceInvariants(t);
  const own = t.resources.filter((r) => r.startsWith(`${ROOT}glue/`) || r === 'node:inspector');
  assert.deepEqual(own, [], 'no resource of perfshim or node:inspector');
  const stacks = t.samples.filter((s) => s.stackId !== undefined).map((s) => framesOf(t, s));
  const names = (fs) => fs.map((f) => f.name);
  assert.ok(
    stacks.some((fs) => names(fs).includes('spinFor')),
    'the user code was sampled',
  );
  const inCallback = stacks.filter((fs) => names(fs).includes('observerCallback'));
  assert.ok(inCallback.length > 0, 'the observer callback was sampled');
  // Its caller is the event loop's (a Node built-in), not perfshim's delivery task.
  for (const fs of inCallback) {
    const caller = fs[names(fs).indexOf('observerCallback') - 1];
    assert.ok(!caller || t.resources[caller.resourceId].startsWith('node:'), caller?.name);
  }
});

test('the same with the CommonJS bundle (dist/perfshim.cjs)', () => {
  const script = `
    const { Profiler } = require(${JSON.stringify(fileURLToPath(new URL('dist/perfshim.cjs', ROOT)))});
    const p = new Profiler({ sampleInterval: 1, maxBufferSize: 100000 });
    const t0 = performance.now();
    while (performance.now() - t0 < 150);
    p.stop().then((t) => console.log(JSON.stringify(t.resources)));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  const resources = JSON.parse(r.stdout);
  assert.ok(resources.length > 0);
  const bundle = pathToFileURL(fileURLToPath(new URL('dist/', ROOT))).href;
  assert.deepEqual(
    resources.filter((u) => u.startsWith(bundle) || u === 'node:inspector'),
    [],
  );
});
