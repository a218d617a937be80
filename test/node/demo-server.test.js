// The demo server as `make demo` runs it (node demo/serve.mjs, its own process), through a
// real HTTP client: a malformed percent-encoding gets 400 and the server keeps serving; it
// serves the demo, dist/, wasm/ and the browser suites' files, never .git or the rest of the repo.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer } from './demo-server-helpers.mjs';

let srv;
before(async () => {
  srv = await startServer(process.execPath, ['demo/serve.mjs']);
});
after(() => srv && srv.stop());

/** GET a raw request path (sent as is: no client-side normalization). */
function get(path) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: srv.port, path, method: 'GET', agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('latin1'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('a malformed percent-encoding gets 400 and the server keeps serving', async () => {
  for (const path of ['/%E0%A4%A', '/demo/%', '/%ZZ', '/demo/%C0%AF']) {
    assert.equal((await get(path)).status, 400, path);
  }
  assert.equal((await get('/demo/')).status, 200, 'still serving');
  assert.equal(srv.exited(), false, 'the server process is alive');
  const many = await Promise.all(
    Array.from({ length: 20 }, (_, i) => get(i % 2 ? '/%E0%A4%A' : '/demo/demo.js')),
  );
  assert.deepEqual(
    many.map((r) => r.status),
    Array.from({ length: 20 }, (_, i) => (i % 2 ? 400 : 200)),
  );
});

test("the demo, the built package and the browser suites' files are served", async () => {
  for (const path of [
    '/',
    '/demo/',
    '/demo/index.html',
    '/demo/demo.js',
    '/demo/frame.html',
    '/demo/worker.js',
    '/demo/plain/',
    '/dist/perfshim.mjs',
    '/dist/perfshim.auto.js',
    '/wasm/perfshim.wasm',
    '/glue/auto.js',
    '/glue/host/loader.js',
    '/test/browser/fixtures/profiler-work.js',
    '/package.json',
    '/package.json?worker',
  ]) {
    const r = await get(path);
    assert.equal(r.status, 200, path);
  }
  assert.equal((await get('/demo/')).headers['cross-origin-opener-policy'], 'same-origin');
  assert.equal((await get('/wasm/perfshim.wasm')).headers['content-type'], 'application/wasm');
});

test('.git, dot files and the rest of the repository are not served', async () => {
  for (const path of [
    '/.git/config',
    '/.git/HEAD',
    '/.git',
    '/demo/../.git/config',
    '/demo/%2e%2e/.git/HEAD',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/demo/..%2f..%2fMakefile',
    '/demo/..%5c.git%5cconfig',
    '/dist/../src/timeline.c',
    '/Makefile',
    '/README.md',
    '/src/timeline.c',
    '/tools/static-server.mjs',
    '/test/node/demo-server.test.js',
    '/node_modules/esbuild/package.json',
    '/demo/.hidden',
    '/demo/%00index.html',
    '/package-lock.json',
  ]) {
    const r = await get(path);
    assert.equal(r.status, 404, path);
    assert.ok(!/\[core\]|ref: refs|root:/.test(r.body), `${path} leaks nothing`);
  }
});
