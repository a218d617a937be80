// `--push URL` (glue/field/collector.js): each window × label set's profile goes to a Pyroscope
// server's ingest API as Pyroscope's own Node client sends one: POST /ingest with the query name
// app{labels}, from and until (Unix seconds), format=pprof, sampleRate (Hz), spyName, and a
// multipart/form-data body whose `profile` field holds the gzipped pprof. A fake server checks
// that contract and decodes the profile.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import * as pprof from 'pprof-format';
import { createCollector, pyroscopeName } from '../../glue/field/collector.js';
import { createField } from '../../glue/field/core.js';
import { makeUpload } from './fixtures/field-upload.js';

function fakePyroscope() {
  const received = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url, 'http://x');
      const type = req.headers['content-type'] || '';
      const problems = [];
      if (req.method !== 'POST') problems.push('method');
      if (url.pathname !== '/ingest') problems.push('path');
      for (const k of ['name', 'from', 'until']) if (!url.searchParams.get(k)) problems.push(k);
      if (url.searchParams.get('format') !== 'pprof') problems.push('format');
      if (!/^multipart\/form-data; boundary=/.test(type)) problems.push('content-type');
      let profile;
      try {
        const form = await new Response(Buffer.concat(chunks), {
          headers: { 'content-type': type },
        }).formData();
        profile = pprof.Profile.decode(
          gunzipSync(Buffer.from(await form.get('profile').arrayBuffer())),
        );
      } catch (e) {
        problems.push(`profile: ${e.message}`);
      }
      received.push({ query: Object.fromEntries(url.searchParams), profile, problems });
      res.writeHead(problems.length ? 400 : 200);
      res.end(problems.join(','));
    });
  });
  return { server, received };
}

test('pyroscopeName: app{labels}, sorted, reserved characters replaced in values', () => {
  assert.equal(
    pyroscopeName('shop', { route: '/a,b', release: 'v1' }),
    'shop{release=v1,route=/a_b}',
  );
});

test('each aggregate is pushed to /ingest as Pyroscope expects', async () => {
  const { server, received } = fakePyroscope();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const field = createField();
  const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
  const c = createCollector({
    push: `http://127.0.0.1:${server.address().port}`,
    app: 'shop.wall',
    windowSeconds: 60,
    now: () => t0 + 5000,
  });
  try {
    c.ingest(makeUpload(field, { release: 'v1', route: '/cart' }));
    c.ingest(makeUpload(field, { release: 'v2', route: '/cart' }));
    await c.close();
    assert.equal(received.length, 2);
    assert.equal(c.stats.pushed, 2);
    for (const r of received) assert.deepEqual(r.problems, []);
    const q = received.map((r) => r.query).sort((a, b) => a.name.localeCompare(b.name));
    assert.equal(q[0].name, 'shop.wall{release=v1,route=/cart}');
    assert.equal(q[0].from, String(t0 / 1000));
    assert.equal(q[0].until, String(t0 / 1000 + 60));
    assert.equal(q[0].sampleRate, '100');
    const p = received[0].profile;
    assert.ok(p.function.some((f) => p.stringTable.strings[Number(f.name)] === 'hot'));
  } finally {
    server.close();
  }
});
