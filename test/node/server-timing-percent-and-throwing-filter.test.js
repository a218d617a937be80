// serverTiming(): a `%` in a description is percent-encoded (so that desc decodes back to the
// original), and a `filter` that throws leaves its measure out, is reported once as a process
// warning, and never reaches the server as an uncaught exception.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { serverTiming, formatMetric } from '../../glue/node/server-timing.js';
import { performance } from '../../glue/index.js';

test('a % in a description is escaped, and the desc decodes back', () => {
  const m = formatMetric('cpu', 1, '50% of 100%25');
  assert.equal(m, 'cpu;dur=1;desc="50%25 of 100%2525"');
  assert.equal(decodeURIComponent(/desc="(.*)"/.exec(m)[1]), '50% of 100%25');
  assert.equal(formatMetric('a%b', 2), 'a%b;dur=2'); // '%' is a token character in a name
});

test('a throwing filter: the measure is left out, one warning, the server keeps serving', async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  const uncaught = [];
  const onUncaught = (e) => uncaught.push(e);
  process.on('warning', onWarning);
  process.on('uncaughtException', onUncaught);
  const mw = serverTiming({
    filter: (e) => {
      if (e.name === 'bad') throw new RangeError('filter failed');
      return true;
    },
  });
  const server = createServer((req, res) =>
    mw(req, res, () => {
      performance.measure('bad', { start: 0, duration: 1 });
      performance.measure('good', { start: 0, duration: 2 });
      res.end('ok');
    }),
  );
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const get = () =>
    new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port: server.address().port, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers['server-timing']));
      })
        .on('error', reject)
        .end();
    });
  try {
    for (let k = 0; k < 3; k++) assert.match(await get(), /^good;dur=2, total;dur=/);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(uncaught, []);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0].name, 'PerfshimWarning');
    assert.match(warnings[0].message, /options\.filter threw.*RangeError: filter failed/s);
  } finally {
    process.off('warning', onWarning);
    process.off('uncaughtException', onUncaught);
    await new Promise((r) => server.close(r));
  }
});
