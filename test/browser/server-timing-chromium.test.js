// serverTiming()'s header read by a real reader: Chromium's Server-Timing parser, through
// PerformanceNavigationTiming.serverTiming of a page served by a node:http server with the
// middleware: names, durations and descriptions (quoted, escaped, percent-encoded) come back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { launch } from './harness.js';
import { serverTiming } from '../../glue/node/server-timing.js';
import { performance } from '../../glue/index.js';

let server, browser, origin;
const middleware = serverTiming();

before(async () => {
  server = createServer((req, res) =>
    middleware(req, res, async () => {
      const t = performance.now();
      await new Promise((r) => setTimeout(r, 15));
      performance.measure('db', { start: t, detail: { description: 'users "by id" \\ cached' } });
      performance.measure('GET /users/:id', { start: 0, duration: 2.5 });
      performance.measure('naïve', { start: 0, duration: 1 });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>server timing</title>');
    }),
  );
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await new Promise((r) => server.close(r));
});

test('Chromium reads every metric of the header: names, durations, descriptions', async () => {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  const metrics = await page.evaluate(() =>
    performance
      .getEntriesByType('navigation')[0]
      .serverTiming.map(({ name, duration, description }) => ({ name, duration, description })),
  );
  await page.close();
  assert.deepEqual(
    metrics.map((m) => m.name),
    ['db', 'GET__users__id', 'na_ve', 'total'],
  );
  assert.ok(metrics[0].duration >= 10, `db ${metrics[0].duration}`);
  assert.equal(metrics[0].description, 'users "by id" \\ cached');
  assert.equal(metrics[1].duration, 2.5);
  assert.equal(metrics[1].description, 'GET /users/:id');
  assert.equal(decodeURIComponent(metrics[2].description), 'naïve');
  assert.ok(metrics[3].duration >= metrics[0].duration, 'total covers the request');
  assert.equal(metrics[3].description, '');
});
