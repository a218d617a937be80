// `npm start` (the npm convention) serves the demo like `make demo`: the page, with the headers
// that unlock the profiler and cross-origin isolation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './demo-server-helpers.mjs';

test('npm start serves the demo page and its module', async () => {
  const srv = await startServer('npm', ['start', '--silent']);
  try {
    const page = await fetch(`${srv.url}/demo/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('document-policy'), 'js-profiling');
    assert.match(await page.text(), /<script type="module" src="demo.js">/);
    const dist = await fetch(`${srv.url}/dist/perfshim.mjs`);
    assert.equal(dist.status, 200);
    assert.match(await dist.text(), /export\s*\{/);
  } finally {
    srv.stop();
  }
});
