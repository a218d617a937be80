// serverTiming({clear: true}) removes exactly the entries each request made: a start-up mark, a
// background measure made outside any request and a concurrent request's entries of the same
// names all stay (the same objects), and the request's own are gone once it ends.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { serverTiming } from '../../glue/node/server-timing.js';
import { performance } from '../../glue/index.js';

test('only the entries the request made are cleared, not same-named ones of others', async () => {
  const ready = performance.mark('ready');
  const background = performance.measure('db', { start: 0, duration: 1 });
  let firstDone;
  const firstEnded = new Promise((r) => {
    firstDone = r;
  });
  const seen = {};
  const mw = serverTiming();
  const server = createServer((req, res) =>
    mw(req, res, async () => {
      if (req.url === '/first') {
        performance.mark('ready');
        performance.measure('db', { start: 1, duration: 2 });
        res.on('finish', () => setImmediate(firstDone));
        res.end();
        return;
      }
      const own = performance.measure('db', { start: 2, duration: 3 });
      await firstEnded; // the first request ended while this one still runs
      seen.ownKept = performance.getEntriesByName('db').includes(own);
      res.end();
    }),
  );
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const get = (path) =>
    new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port: server.address().port, path, agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });
  try {
    const second = get('/second');
    await get('/first');
    await second;
    await new Promise((r) => setImmediate(r));
    assert.equal(seen.ownKept, true, "a concurrent request's own measure was cleared under it");
    assert.deepEqual(performance.getEntriesByName('ready'), [ready]);
    assert.deepEqual(performance.getEntriesByName('db'), [background]);
    assert.equal(performance.getEntriesByName('db')[0], background);
    // The start-up mark is still the one a name converts to.
    assert.equal(performance.measure('since-ready', 'ready').startTime, ready.startTime);
  } finally {
    await new Promise((r) => server.close(r));
    performance.clearMarks();
    performance.clearMeasures();
  }
});
