// serverTiming(...).fetch(handler): a fetch-style handler's Response gets the request's measures
// and total as a Server-Timing header (never another concurrent request's), after any the
// handler set, on a copy when the Response's headers are immutable; its marks and measures are
// cleared; a handler that throws rejects and still ends the request. Served for real by
// Bun.serve under Bun and Deno.serve under Deno (`make test-bun`, `make test-deno`); in Node the
// handler is called as a fetch-style server would.
import test from 'node:test';
import assert from 'node:assert/strict';
import { serverTiming } from '../../glue/node/server-timing.js';
import { performance } from '../../glue/index.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const names = (header) => header.split(', ').map((m) => m.split(';')[0]);

/** The handler under test: measures `work-<name>` around an await, answers with a fresh
 *  Response, or fetch()'s kind of Response (immutable headers) for ?immutable. */
async function handler(request) {
  const url = new URL(request.url);
  const name = url.searchParams.get('name') || 'x';
  performance.mark(`start-${name}`);
  await sleep(Number(url.searchParams.get('ms') || 5));
  performance.measure(`work-${name}`, `start-${name}`);
  if (url.searchParams.has('throw')) throw new RangeError('handler failed');
  if (url.searchParams.has('immutable')) return Response.redirect('http://127.0.0.1/next', 302);
  return new Response(name, { headers: { 'Server-Timing': 'app;dur=1' } });
}

/** Serve `fetch` with the runtime's own fetch-style server, or call it as one would (Node). */
async function withServer(fetchHandler, fn) {
  if (globalThis.Bun) {
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: fetchHandler });
    try {
      return await fn((path) =>
        fetch(`http://127.0.0.1:${server.port}${path}`, { redirect: 'manual' }),
      );
    } finally {
      server.stop(true);
    }
  }
  if (globalThis.Deno) {
    const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen() {} }, fetchHandler);
    try {
      const { port } = server.addr;
      return await fn((path) => fetch(`http://127.0.0.1:${port}${path}`, { redirect: 'manual' }));
    } finally {
      await server.shutdown();
    }
  }
  return fn((path) => fetchHandler(new Request(`http://127.0.0.1${path}`)));
}

test('each Response carries its own measures and total, after the handler’s own header', async () => {
  const wrapped = serverTiming().fetch(handler);
  await withServer(wrapped, async (get) => {
    const [a, b] = await Promise.all([get('/?name=a&ms=30'), get('/?name=b&ms=5')]);
    assert.equal(await a.text(), 'a');
    assert.equal(await b.text(), 'b');
    assert.deepEqual(names(a.headers.get('server-timing')), ['app', 'work-a', 'total']);
    assert.deepEqual(names(b.headers.get('server-timing')), ['app', 'work-b', 'total']);
    const dur = Number(/work-a;dur=([\d.]+)/.exec(a.headers.get('server-timing'))[1]);
    assert.ok(dur >= 25, `work-a took the handler's 30 ms wait (${dur})`);
  });
  assert.deepEqual(performance.getEntriesByName('work-a'), [], 'cleared');
  assert.deepEqual(performance.getEntriesByName('start-b'), [], 'cleared');
});

test('a Response whose headers are immutable is copied with the header', async () => {
  const wrapped = serverTiming().fetch(handler);
  await withServer(wrapped, async (get) => {
    const r = await get('/?name=i&immutable');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'http://127.0.0.1/next');
    assert.deepEqual(names(r.headers.get('server-timing')), ['work-i', 'total']);
  });
});

test('a handler that throws rejects with its error, and the request still ends', async () => {
  const wrapped = serverTiming().fetch(handler);
  await assert.rejects(wrapped(new Request('http://127.0.0.1/?name=t&throw')), {
    name: 'RangeError',
    message: 'handler failed',
  });
  assert.deepEqual(performance.getEntriesByName('work-t'), [], 'cleared');
});

test('fetch() takes a function: anything else is a TypeError', () => {
  for (const bad of [undefined, null, {}, 'handler'])
    assert.throws(() => serverTiming().fetch(bad), { name: 'TypeError' });
});
