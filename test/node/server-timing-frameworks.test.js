// serverTiming() inside Express, Connect and Fastify (through @fastify/middie): a real client gets
// the request's measures (made after awaits too) in the Server-Timing header; concurrent requests
// never mix; a handler that throws or rejects still ends its request with the framework's 500,
// the header, and its marks and measures cleared.
import test from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import express from 'express';
import connect from 'connect';
import Fastify from 'fastify';
import middie from '@fastify/middie';
import { serverTiming } from '../../glue/node/server-timing.js';
import { performance } from '../../glue/index.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A request's work: a mark, an await, a measure from the mark, all named after the request. */
async function work(id) {
  performance.mark(`start-${id}`);
  await sleep((Number(id) * 7) % 20);
  performance.measure(`work-${id}`, `start-${id}`);
}

/** GET or POST on 127.0.0.1:port, no keep-alive: { status, header, body }. */
function call(port, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: false,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'content-type': 'text/plain' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            header: res.headers['server-timing'] || '',
            body: text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const metricNames = (header) => header.split(', ').map((m) => m.split(';')[0]);

// The failing routes' handlers, the same in Express and Fastify (both pass the request first and
// turn a throw or a rejection into their error path).
const throwing = (req) => {
  performance.measure(`work-${req.params.id}`, { start: performance.now(), duration: 1 });
  throw new Error('boom');
};
const rejecting = async (req) => {
  await work(req.params.id);
  throw new Error('boom');
};

/** The frameworks, each as start() -> { port, close() } with the same three routes:
 *  GET /work/:id (measures, then the id as the body), GET /throw/:id (a measure, then a
 *  synchronous throw), GET /reject/:id (a measure after an await, then a rejection). */
const frameworks = {
  async express() {
    const app = express();
    app.use(serverTiming());
    app.get('/work/:id', async (req, res) => {
      await work(req.params.id);
      res.send(req.params.id);
    });
    app.get('/throw/:id', throwing);
    app.get('/reject/:id', rejecting);
    app.use((err, req, res, next) => res.status(500).send('failed'));
    return listen(app);
  },

  async connect() {
    const app = connect();
    app.use(serverTiming());
    app.use((req, res, next) => {
      const [, route, id] = req.url.split('/');
      if (route === 'work') work(id).then(() => res.end(id), next);
      else if (route === 'throw') {
        performance.measure(`work-${id}`, { start: performance.now(), duration: 1 });
        throw new Error('boom');
      } else if (route === 'reject')
        work(id)
          .then(() => {
            throw new Error('boom');
          })
          .catch(next);
      else next();
    });
    app.use((err, req, res, next) => {
      res.statusCode = 500;
      res.end('failed');
    });
    return listen(app);
  },

  async fastify() {
    const app = Fastify();
    await app.register(middie);
    app.use(serverTiming());
    app.get('/work/:id', async (req) => {
      await work(req.params.id);
      return req.params.id;
    });
    app.get('/throw/:id', throwing);
    app.get('/reject/:id', rejecting);
    app.post('/echo/:id', async (req) => {
      performance.measure(`work-${req.params.id}`, { start: performance.now(), duration: 1 });
      return req.body;
    });
    app.setErrorHandler((err, req, reply) => reply.code(500).send('failed'));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: app.server.address().port, close: () => app.close() };
  },
};

async function listen(handler) {
  const { createServer } = await import('node:http');
  const server = createServer(handler);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { port: server.address().port, close: () => new Promise((r) => server.close(r)) };
}

function assertCleared() {
  const left = performance
    .getEntries()
    .filter((e) => /^(start|work)-/.test(e.name))
    .map((e) => `${e.entryType} ${e.name}`);
  assert.deepEqual(left, [], "every request's marks and measures are cleared");
}

for (const [name, start] of Object.entries(frameworks)) {
  test(`${name}: the header reaches the client, and concurrent requests never mix`, async () => {
    const app = await start();
    try {
      const ids = Array.from({ length: 20 }, (_, i) => String(i));
      const results = await Promise.all(ids.map((id) => call(app.port, `/work/${id}`)));
      for (const [i, r] of results.entries()) {
        assert.equal(r.status, 200);
        assert.equal(r.body, ids[i]);
        assert.deepEqual(metricNames(r.header), [`work-${i}`, 'total'], r.header);
      }
    } finally {
      await app.close();
    }
    assertCleared();
  });

  test(`${name}: a handler that throws or rejects still ends its request cleanly`, async () => {
    const app = await start();
    try {
      const results = await Promise.all([
        call(app.port, '/throw/100'),
        call(app.port, '/reject/101'),
        call(app.port, '/work/102'),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        [500, 500, 200],
      );
      assert.deepEqual(metricNames(results[0].header), ['work-100', 'total']);
      assert.deepEqual(metricNames(results[1].header), ['work-101', 'total']);
      assert.deepEqual(metricNames(results[2].header), ['work-102', 'total']);
      // The server still serves after the errors.
      const after = await call(app.port, '/work/103');
      assert.deepEqual(metricNames(after.header), ['work-103', 'total']);
    } finally {
      await app.close();
    }
    assertCleared();
  });
}

test('fastify: a request with a body (parsed by Fastify) keeps its own timings', async () => {
  const app = await frameworks.fastify();
  try {
    const ids = Array.from({ length: 10 }, (_, i) => String(200 + i));
    const results = await Promise.all(ids.map((id) => call(app.port, `/echo/${id}`, id)));
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, 200);
      assert.equal(r.body, ids[i]);
      assert.deepEqual(metricNames(r.header), [`work-${ids[i]}`, 'total']);
    }
  } finally {
    await app.close();
  }
  assertCleared();
});
