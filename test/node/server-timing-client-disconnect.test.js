// serverTiming() when clients go away mid-request: the handler's marks stay usable until it ends
// its response (measure() from them works after the disconnect), and every entry an aborted
// request made is removed once its handler is done: the buffer does not grow with aborts.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { serverTiming } from '../../glue/node/server-timing.js';
import { performance } from '../../glue/index.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A server whose handler marks, waits for its client to go away, then measures from the mark
 *  and ends the response; `aborted(n)` sends n requests, each abandoned once its handler
 *  started, and resolves with the handlers' outcomes (true: the measure worked). */
async function abortingServer(fn) {
  const outcomes = [];
  let entered = null;
  const mw = serverTiming();
  const server = createServer((req, res) =>
    mw(req, res, async () => {
      performance.mark('abort:start');
      const gone = new Promise((r) => res.once('close', r));
      entered();
      await gone;
      await sleep(1);
      try {
        performance.measure('abort:work', 'abort:start');
        outcomes.push(true);
      } catch (e) {
        outcomes.push(e);
      }
      res.end();
    }),
  );
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const aborted = async (n) => {
    const before = outcomes.length;
    for (let k = 0; k < n; k++) {
      const inHandler = new Promise((r) => {
        entered = r;
      });
      const req = request({ host: '127.0.0.1', port: server.address().port, agent: false });
      req.on('error', () => {});
      req.end();
      await inHandler;
      req.destroy();
    }
    while (outcomes.length < before + n) await sleep(5);
    await sleep(5); // the last response's end
    return outcomes.slice(before);
  };
  try {
    await fn(aborted);
  } finally {
    server.closeAllConnections?.();
    await new Promise((r) => server.close(r));
  }
}

test("a client that goes away does not clear the handler's marks under it", async () => {
  await abortingServer(async (aborted) => {
    const outcomes = await aborted(20);
    const failed = outcomes.filter((o) => o !== true);
    assert.equal(failed.length, 0, `measure() failed: ${failed.map(String).slice(0, 3)}`);
  });
});

test('aborted requests leave no entries behind: the buffer does not grow', async () => {
  await abortingServer(async (aborted) => {
    await aborted(5);
    const before = performance.getEntries().length;
    await aborted(100);
    assert.equal(performance.getEntriesByName('abort:work').length, 0);
    assert.equal(performance.getEntriesByName('abort:start').length, 0);
    assert.equal(performance.getEntries().length, before);
  });
});
