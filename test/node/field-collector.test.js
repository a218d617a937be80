// The field collector (glue/field/collector.js, `perfshim collect`): uploads become one pprof per
// window × label set (labels in the path and as pprof labels, read back with pprof-format);
// hostile uploads (garbage, a gzip bomb, too large, bad labels) get a 4xx with the reason, are
// counted, and the collector keeps serving; CORS; Express, Connect and Fastify; SIGTERM flushes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as pprof from 'pprof-format';
import express from 'express';
import connect from 'connect';
import Fastify from 'fastify';
import middie from '@fastify/middie';
import { createCollector } from '../../glue/field/collector.js';
import { createField } from '../../glue/field/core.js';
import { makeUpload } from './fixtures/field-upload.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'perfshim-field-'));

async function listen(handler) {
  const server = createServer(handler);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

async function post(url, body, headers = { 'content-type': 'text/plain' }) {
  const res = await fetch(url, { method: 'POST', body, headers });
  return {
    status: res.status,
    text: await res.text(),
    cors: res.headers.get('access-control-allow-origin'),
  };
}

function readProfile(file) {
  const p = pprof.Profile.decode(gunzipSync(readFileSync(file)));
  const s = (i) => p.stringTable.strings[Number(i)];
  const names = p.function.map((f) => s(f.name));
  const labels = new Set(p.sample.flatMap((x) => x.label.map((l) => `${s(l.key)}=${s(l.str)}`)));
  const byName = {};
  for (const smp of p.sample) {
    const leaf = p.function.find(
      (f) => f.id === p.location.find((l) => l.id === smp.locationId[0]).line[0].functionId,
    );
    byName[s(leaf.name)] = (byName[s(leaf.name)] || 0) + Number(smp.value[0]);
  }
  return { names, labels, byName };
}

test('uploads become one pprof per label set, with labels in the path and the samples', async () => {
  const field = createField();
  const out = tmp();
  const c = createCollector({ out, windowSeconds: 3600 });
  const srv = await listen(c.handler);
  try {
    for (let i = 0; i < 3; i++) {
      const r = await post(srv.url, makeUpload(field, { release: 'v1', route: '/cart' }));
      assert.equal(r.status, 204);
      assert.equal(r.cors, '*');
    }
    const gz = gzipSync(makeUpload(field, { release: 'v2', route: '/cart' }));
    assert.equal((await post(srv.url, gz)).status, 204);
    const files = await c.close();
    assert.equal(files.length, 2);
    const v1 = files.find((f) => f.endsWith('release=v1,route=%2Fcart.pb.gz'));
    assert.ok(v1, files.join(' '));
    const p = readProfile(v1);
    assert.ok(p.names.includes('hot') && p.names.includes('main'));
    assert.ok(p.labels.has('release=v1') && p.labels.has('route=/cart'));
    assert.deepEqual(p.byName, { main: 15, hot: 45 });
    assert.equal(c.stats.accepted, 4);
  } finally {
    srv.close();
  }
});

test('hostile uploads get a 4xx with a reason, are counted, and the collector keeps serving', async () => {
  const field = createField();
  const c = createCollector({ windowSeconds: 3600 });
  const srv = await listen(c.handler);
  try {
    const good = makeUpload(field);
    let r = await post(srv.url, new Uint8Array([1, 2, 3, 4, 5]));
    assert.equal(r.status, 400);
    assert.match(r.text, /bad upload: not a perfshim upload/);
    r = await post(srv.url, good.slice(0, good.length - 3));
    assert.equal(r.status, 400);
    assert.match(r.text, /bad upload: (truncated|count)/);
    // A gzip bomb: 64 MB of zeros in ~64 KB: refused at the decompression cap, not inflated.
    const bomb = gzipSync(Buffer.alloc(64 << 20), { level: 9 });
    assert.ok(bomb.length < 65536);
    r = await post(srv.url, bomb);
    assert.equal(r.status, 413);
    assert.match(r.text, /after decompression/);
    r = await post(srv.url, new Uint8Array(70000));
    assert.equal(r.status, 413);
    r = await post(srv.url, gzipSync(Buffer.from('not gzip enough')).subarray(0, 12));
    assert.equal(r.status, 400);
    assert.equal((await fetch(srv.url)).status, 405);
    const pre = await fetch(srv.url, { method: 'OPTIONS' });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), '*');
    assert.equal((await post(srv.url, good)).status, 204);
    assert.equal(c.stats.accepted, 1);
    assert.equal(c.stats.refused, 6);
    assert.equal(c.stats.reasons['upload too large after decompression'], 1);
  } finally {
    srv.close();
  }
});

test('label sets per window are capped (429)', async () => {
  const field = createField();
  const c = createCollector({ windowSeconds: 3600, maxLabelSets: 2 });
  for (const release of ['a', 'b']) assert.equal(c.ingest(makeUpload(field, { release }))[0], 204);
  assert.deepEqual(c.ingest(makeUpload(field, { release: 'c' })), [
    429,
    'too many label sets in this window',
  ]);
  assert.equal(c.ingest(makeUpload(field, { release: 'a' }))[0], 204);
});

test('a label the collector would refuse is a TypeError at encode time', () => {
  const field = createField();
  assert.throws(() => makeUpload(field, { 'bad-name': 'x' }), {
    name: 'TypeError',
    message: /label 'bad-name'/,
  });
});

test('Express, Connect and Fastify mount the handler', async () => {
  const field = createField();
  const make = {
    async express(c) {
      const app = express();
      app.use('/field', c.handler);
      return listen(app);
    },
    async connect(c) {
      const app = connect();
      app.use(c.handler);
      return listen(app);
    },
    async fastify(c) {
      const app = Fastify();
      await app.register(middie);
      app.use(c.handler);
      await app.listen({ port: 0, host: '127.0.0.1' });
      return {
        url: `http://127.0.0.1:${app.server.address().port}/field`,
        close: () => app.close(),
      };
    },
  };
  for (const [name, mount] of Object.entries(make)) {
    const c = createCollector({ windowSeconds: 3600, path: name === 'express' ? '/' : '/field' });
    const srv = await mount(c);
    try {
      const url = `${srv.url.replace(/\/field$/, '')}/field`;
      const r = await post(url, makeUpload(field));
      assert.equal(r.status, 204, `${name}: ${r.text}`);
      assert.equal(c.stats.accepted, 1, name);
    } finally {
      await srv.close();
    }
  }
});

test('`perfshim collect` writes on SIGTERM and exits 0', async () => {
  const field = createField();
  const out = tmp();
  const child = spawn(
    process.execPath,
    ['glue/cli/perfshim.js', 'collect', '--port', '0', '--out', out, '--flush', '3600'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(err)));
  });
  assert.equal((await post(url, makeUpload(field, { release: 'v9' }))).status, 204);
  assert.equal((await post(url, new Uint8Array([0xff]))).status, 400);
  const code = await new Promise((r) => {
    child.once('exit', r);
    child.kill('SIGTERM');
  });
  assert.equal(code, 0, err);
  const [dir] = readdirSync(out);
  assert.deepEqual(readdirSync(join(out, dir)), ['release=v9.pb.gz']);
  assert.match(err, /1 uploads accepted, 1 refused/);
});
