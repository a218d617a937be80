// serverTiming(): a real node:http server and client; each response's Server-Timing header holds
// that request's measures and total (never another request's), escaped per the grammar, capped,
// filtered; the request's marks and measures are cleared afterwards; bad options are TypeErrors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { serverTiming } from '../../glue/node/server-timing.js';
import { performance } from '../../glue/index.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Server-Timing header -> [{name, dur, desc}] (W3C Server Timing §3 grammar, RFC 7230 tokens
 *  and quoted-strings). */
function parseServerTiming(value) {
  const out = [];
  let i = 0;
  const token = () => {
    const m = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/.exec(value.slice(i));
    assert.ok(m, `token at ${i} in ${value}`);
    i += m[0].length;
    return m[0];
  };
  const ws = () => {
    while (value[i] === ' ' || value[i] === '\t') i++;
  };
  const quoted = () => {
    assert.equal(value[i++], '"');
    let s = '';
    for (;;) {
      const c = value[i++];
      assert.ok(c !== undefined, 'unterminated quoted-string');
      if (c === '"') return s;
      if (c === '\\') s += value[i++];
      else s += c;
    }
  };
  while (i < value.length) {
    ws();
    const metric = { name: token() };
    for (ws(); value[i] === ';'; ws()) {
      i++;
      ws();
      const key = token().toLowerCase();
      ws();
      assert.equal(value[i++], '=');
      ws();
      const v = value[i] === '"' ? quoted() : token();
      if (!(key in metric)) metric[key] = key === 'dur' ? Number(v) : v;
    }
    out.push(metric);
    ws();
    if (i < value.length) assert.equal(value[i++], ',');
  }
  return out;
}

async function withServer(middleware, handler, fn) {
  const server = createServer((req, res) => middleware(req, res, () => handler(req, res)));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const get = (path) =>
    new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode, header: res.headers['server-timing'], body }),
        );
      })
        .on('error', reject)
        .end();
    });
  try {
    await fn(get);
  } finally {
    await new Promise((r) => server.close(r));
  }
}

test("the request's measures and total, before the headers are sent", async () => {
  await withServer(
    serverTiming(),
    async (req, res) => {
      const t0 = performance.now();
      await sleep(20);
      performance.measure('db', { start: t0, detail: { description: 'SELECT 1' } });
      performance.measure('render', { start: performance.now(), duration: 5 });
      res.end('ok');
    },
    async (get) => {
      const r = await get('/');
      assert.equal(r.body, 'ok');
      const m = parseServerTiming(r.header);
      assert.deepEqual(
        m.map((x) => x.name),
        ['db', 'render', 'total'],
      );
      assert.equal(m[0].desc, 'SELECT 1');
      assert.ok(m[0].dur >= 15, `db dur ${m[0].dur}`);
      assert.equal(m[1].dur, 5);
      assert.ok(m[2].dur >= m[0].dur, 'total covers the request');
    },
  );
});

test('concurrent requests never mix their timings', async () => {
  await withServer(
    serverTiming(),
    async (req, res) => {
      const id = req.url.slice(1);
      for (let k = 0; k < 3; k++) {
        const t = performance.now();
        await sleep(Math.random() * 10);
        performance.measure(`step-${id}-${k}`, { start: t });
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(id);
    },
    async (get) => {
      const ids = Array.from({ length: 25 }, (_, i) => String(i));
      const results = await Promise.all(ids.map((id) => get(`/${id}`)));
      for (const [i, r] of results.entries()) {
        assert.equal(r.body, ids[i]);
        const names = parseServerTiming(r.header).map((x) => x.name);
        assert.deepEqual(names, [`step-${i}-0`, `step-${i}-1`, `step-${i}-2`, 'total']);
      }
    },
  );
});

test('measures made in request events (a body read with data/end) belong to their request', async () => {
  const server = createServer((req, res) =>
    serverTimingForBodies(req, res, () => {
      let body = '';
      const onData = (c) => {
        body += c;
      };
      req.on('data', onData);
      req.on('end', () => {
        req.removeListener('data', onData); // removing the original listener still works
        performance.measure(`body-${body}`, { start: 0, duration: body.length });
        res.end(body);
      });
    }),
  );
  const serverTimingForBodies = serverTiming({ total: false });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const post = (body) =>
    new Promise((resolve, reject) => {
      const r = request(
        { host: '127.0.0.1', port: server.address().port, method: 'POST', agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers['server-timing']));
        },
      ).on('error', reject);
      r.write(body.slice(0, 1));
      setTimeout(() => r.end(body.slice(1)), 20 + Math.random() * 20); // the body arrives in two events
    });
  try {
    const bodies = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    const headers = await Promise.all(bodies.map(post));
    headers.forEach((h, i) =>
      assert.deepEqual(parseServerTiming(h), [
        { name: `body-${bodies[i]}`, dur: bodies[i].length },
      ]),
    );
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('names that are not tokens are escaped, the original kept in desc', async () => {
  const odd = ['GET /users/:id', 'say "hi" \\ back', 'naïve 🚀', 'tab\there', ''];
  await withServer(
    serverTiming({ total: false }),
    (req, res) => {
      for (const n of odd) performance.measure(n, { start: 0, duration: 1 });
      res.end();
    },
    async (get) => {
      const r = await get('/');
      const m = parseServerTiming(r.header);
      assert.equal(m.length, odd.length);
      assert.deepEqual(
        m.map((x) => x.name),
        ['GET__users__id', 'say__hi____back', 'na_ve___', 'tab_here', '_'],
      );
      const desc = m.map((x) => (x.desc === undefined ? '' : decodeURIComponent(x.desc)));
      assert.deepEqual(desc, odd);
    },
  );
});

test('prefix and filter choose the measures; maxEntries and maxHeaderLength cap them', async () => {
  const handler = (req, res) => {
    for (let k = 0; k < 50; k++)
      performance.measure(`${k % 2 ? 'db' : 'cache'}:${k}`, { start: 0, duration: k });
    res.end();
  };
  await withServer(serverTiming({ prefix: 'db:', maxEntries: 5 }), handler, async (get) => {
    const m = parseServerTiming((await get('/')).header);
    // ':' is not a token character: the name is escaped, the original is the desc.
    assert.deepEqual(
      m.map((x) => x.desc || x.name),
      ['db:1', 'db:3', 'db:5', 'db:7', 'db:9', 'total'],
    );
  });
  await withServer(serverTiming({ filter: (e) => e.duration >= 48 }), handler, async (get) => {
    const m = parseServerTiming((await get('/')).header);
    assert.deepEqual(
      m.map((x) => x.desc || x.name),
      ['cache:48', 'db:49', 'total'],
    );
  });
  await withServer(serverTiming({ maxHeaderLength: 60 }), handler, async (get) => {
    const h = (await get('/')).header;
    assert.ok(h.length <= 60, h);
    const m = parseServerTiming(h);
    assert.equal(m.at(-1).name, 'total', 'total always fits');
    assert.ok(m.length >= 2 && m.length < 10);
  });
});

test('an existing Server-Timing header is kept', async () => {
  await withServer(
    serverTiming(),
    (req, res) => {
      res.setHeader('Server-Timing', 'cdn;dur=1');
      performance.measure('app', { start: 0, duration: 2 });
      res.end();
    },
    async (get) => {
      const m = parseServerTiming((await get('/')).header);
      assert.deepEqual(
        m.map((x) => x.name),
        ['cdn', 'app', 'total'],
      );
    },
  );
});

test("the request's marks and measures are cleared afterwards, unless clear: false", async () => {
  const handler = (req, res) => {
    performance.mark(`st-mark${req.url}`);
    performance.measure(`st-measure${req.url}`, `st-mark${req.url}`);
    res.end();
  };
  await withServer(serverTiming(), handler, async (get) => {
    await get('/a');
    await sleep(5);
    assert.equal(performance.getEntriesByName('st-mark/a').length, 0);
    assert.equal(performance.getEntriesByName('st-measure/a').length, 0);
  });
  await withServer(serverTiming({ clear: false }), handler, async (get) => {
    await get('/b');
    await sleep(5);
    assert.equal(performance.getEntriesByName('st-mark/b').length, 1);
    assert.equal(performance.getEntriesByName('st-measure/b').length, 1);
    performance.clearMarks('st-mark/b');
    performance.clearMeasures('st-measure/b');
  });
});

test('a mark name another request still uses is not cleared under it', async () => {
  let release;
  const gate = new Promise((r) => {
    release = r;
  });
  await withServer(
    serverTiming(),
    async (req, res) => {
      performance.mark('shared:start');
      if (req.url === '/slow') await gate;
      // The slow request measures from the shared mark after the fast one has finished.
      try {
        performance.measure('since-start', 'shared:start');
      } catch {
        res.statusCode = 500;
      }
      res.end();
    },
    async (get) => {
      const slow = get('/slow');
      await sleep(20);
      const fast = await get('/fast');
      assert.ok(fast.header.startsWith('since-start;dur='));
      await sleep(5);
      release();
      const r = await slow;
      assert.equal(r.status, 200, 'measure() from the shared mark did not throw');
      assert.ok(r.header.startsWith('since-start;dur='));
      await sleep(5);
      assert.equal(
        performance.getEntriesByName('shared:start').length,
        0,
        'cleared once both ended',
      );
    },
  );
});

test('bad options are TypeErrors', () => {
  assert.throws(() => serverTiming(null), { name: 'TypeError' });
  assert.throws(() => serverTiming({ prefix: 3 }), { name: 'TypeError', message: /prefix/ });
  assert.throws(() => serverTiming({ filter: 'x' }), { name: 'TypeError', message: /filter/ });
  assert.throws(() => serverTiming({ maxEntries: -1 }), {
    name: 'TypeError',
    message: /maxEntries/,
  });
  assert.throws(() => serverTiming({ maxHeaderLength: 1.5 }), {
    name: 'TypeError',
    message: /maxHeaderLength/,
  });
  assert.throws(() => serverTiming({ total: 'a b' }), { name: 'TypeError', message: /total/ });
});
