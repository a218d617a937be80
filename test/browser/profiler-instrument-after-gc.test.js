// The instrumentation source after full garbage collections, in a page built as production
// builds it: the classic perfshim.auto.js, then the app bundled by esbuild through the plugin
// (IIFE) and minified by terser (defaults). Chromium runs with --expose-gc and calls gc();
// Firefox and WebKit churn allocations until an object registered with a FinalizationRegistry
// when the app loaded is finalized (a major GC ran; not a WeakRef's deref(), which in Firefox
// kept its target alive for the rest of the run). Then `new perfshim.Profiler()` around the app's work: every sample has a stack
// (issue 23's P0: before, the switch's setter was held weakly, its binding dropped by the
// minifier, and after the first full GC no sample had a stack).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { build } from 'esbuild';
import { minify } from 'terser';
import { serve, launchEngine, forEachEngine, withCollector, ROOT } from './harness.js';
import { esbuildPlugin } from '../../glue/instrument/index.js';

async function minifiedApp() {
  const work = join(ROOT, 'test/node/fixtures/instrument-work.mjs');
  const out = await build({
    stdin: {
      contents: `import { alternate } from ${JSON.stringify(work)};\nwindow.work = alternate;\n(window.registry = new FinalizationRegistry(() => { window.collected = true; })).register({}, 0);`,
      resolveDir: ROOT,
    },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
    plugins: [esbuildPlugin({ include: /instrument-work/ })],
  });
  return (await minify(out.outputFiles[0].text)).code;
}

const PAGE = `<!doctype html><meta charset=utf-8><title>after gc</title>
<script src="/dist/perfshim.auto.js"></script><script src="/gc/app.js"></script>
<script>
// A full collection: gc() where exposed, else allocation churn (in tasks of their own) until the
// object registered when the app loaded is finalized. The chunks live for a few rounds, so they leave the
// nursery and grow the tenured heap until a major collection runs.
window.collect = async () => {
  if (typeof gc === 'function') { for (let i = 0; i < 3; i++) gc(); return 'gc()'; }
  const ring = [];
  for (let round = 0; round < 400; round++) {
    const chunk = [];
    for (let i = 0; i < 2000; i++) chunk.push(new Array(256).fill(i));
    ring[round % 16] = chunk;
    await new Promise((r) => setTimeout(r, 0));
    if (window.collected) return 'churn, ' + (round + 1) + ' rounds';
  }
  return 'no collection';
};
window.run = async () => {
  const how = await collect();
  const p = new perfshim.Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
  work(20, 8);
  const t = await p.stop();
  return { how, total: t.samples.length, names: t.samples.filter((s) => s.stackId !== undefined)
    .map((s) => t.frames[t.stacks[s.stackId].frameId].name) };
};
window.ready = true;
</script>`;

forEachEngine((engine) => {
  let srv, browser;
  before(async () => {
    const routes = {
      '/gc/index.html': { body: withCollector(PAGE) },
      '/gc/app.js': { body: await minifiedApp(), type: 'text/javascript' },
    };
    srv = await serve({ routes });
    browser = await launchEngine(engine, { args: ['--js-flags=--expose-gc'] });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('a minified bundle still samples its stacks after a full garbage collection', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${srv.url}/gc/index.html`);
      await page.waitFor(() => window.ready === true, undefined, { timeout: 30000 });
      const r = await page.evaluate(() => window.run());
      assert.deepEqual(await page.errors(), []);
      assert.notEqual(r.how, 'no collection');
      if (engine === 'chromium') assert.equal(r.how, 'gc()');
      assert.ok(r.total >= 10, `${r.total} samples`);
      assert.ok(
        r.names.length >= r.total - 2,
        `${r.names.length} of ${r.total} have a stack (${r.how})`,
      );
      assert.ok(r.names.includes('spin'), r.names.join(','));
    } finally {
      await page.close();
    }
  });
});
