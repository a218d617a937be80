// serverTiming() binds request listeners to the request's context and keeps EventEmitter's
// pairing: req.once(ev, f) / prependOnceListener then removeListener(ev, f) removes f; a
// once-listener still fires once, in the request's context, and listeners() shows f.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { serverTiming } from '../../glue/node/server-timing.js';
import { performance } from '../../glue/index.js';

test('once() then removeListener() removes the listener; a kept once() fires once, in context', async () => {
  const mw = serverTiming({ total: false });
  const server = createServer((req, res) =>
    mw(req, res, () => {
      const calls = { once: 0, prepend: 0, kept: 0 };
      const once = () => calls.once++;
      const prepend = () => calls.prepend++;
      req.once('end', once);
      req.prependOnceListener('end', prepend);
      const listed = req.listeners('end');
      req.removeListener('end', once);
      req.off('end', prepend);
      req.once('end', () => {
        calls.kept++;
        performance.measure('in-once', { start: 0, duration: 1 }); // the request's context
        req.emit('end'); // a once-listener never runs twice
        res.end(JSON.stringify({ calls, listed: listed.map((f) => f.name) }));
      });
      req.resume();
    }),
  );
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { body, header } = await new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port: server.address().port, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () =>
          resolve({ body: JSON.parse(text), header: res.headers['server-timing'] }),
        );
      })
        .on('error', reject)
        .end();
    });
    assert.deepEqual(body.calls, { once: 0, prepend: 0, kept: 1 });
    assert.deepEqual(body.listed, ['prepend', 'once']);
    assert.equal(header, 'in-once;dur=1');
  } finally {
    await new Promise((r) => server.close(r));
  }
});
