// The cost of the Node integrations, side by side in one run (ratios, not absolute speeds):
//   1. performance.measure() with no listener, with a PerformanceObserver (what any observer
//      costs), with serverTiming's listener outside a request,
//      inside a request, and with traceMeasures() (no-op tracer: the listener's own cost);
//   2. node:http: CPU time per request without and with the middleware (3 measures a request).
// Run: node bench/node-integrations.mjs
import { createServer, request, Agent } from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance, PerformanceObserver } from '../glue/index.js';
import { serverTiming } from '../glue/node/server-timing.js';
import { onQueued } from '../glue/node/queue-hook.js';

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

// CPU time, not wall time: steadier on a machine shared with other work.
function measureLoop(n) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) performance.measure('bench', { start: 0, duration: 1 });
  const c = process.cpuUsage(c0);
  const ns = ((c.user + c.system) * 1000) / n;
  performance.clearMeasures('bench');
  return ns;
}

function nsPerMeasure(setup, rounds = 7, n = 20000) {
  const out = [];
  for (let r = 0; r < rounds; r++) out.push(setup(() => measureLoop(n)));
  return median(out);
}

// Warm-up: the first rounds include compiling measure()'s path; each case then gets the same
// number of rounds, plain and with the empty listener alternating.
nsPerMeasure((f) => f(), 10);
const plainRounds = [],
  listenerRounds = [],
  observerRounds = [];
for (let r = 0; r < 7; r++) {
  plainRounds.push(measureLoop(20000));
  const stop = onQueued(['measure'], () => {});
  listenerRounds.push(measureLoop(20000));
  stop();
  const observer = new PerformanceObserver(() => {});
  observer.observe({ type: 'measure' });
  observerRounds.push(measureLoop(20000));
  observer.disconnect();
}
const plain = median(plainRounds);
const listener = median(listenerRounds);
const observed = median(observerRounds);

// serverTiming's listener, outside and inside a request's store.
const mw = serverTiming({ clear: false });
const outside = nsPerMeasure((f) => f());
const fakeRes = { writeHead() {}, once() {}, getHeader() {}, setHeader() {}, headersSent: false };
const inside = nsPerMeasure((f) => {
  let v;
  mw({ on() {} }, { ...fakeRes, on() {} }, () => {
    v = f();
  });
  return v;
});

let otel = null;
try {
  const { traceMeasures } = await import('../glue/node/opentelemetry.js');
  const stop = traceMeasures(); // no SDK registered: the API's no-op tracer
  otel = nsPerMeasure((f) => f());
  stop();
} catch {
  /* @opentelemetry/api not installed */
}

console.log('performance.measure(), CPU ns per call (median of 7 rounds of 20,000)');
console.log('| case | ns | ratio to no listener |\n| --- | --- | --- |');
const row = (name, v) => console.log(`| ${name} | ${v.toFixed(0)} | ${(v / plain).toFixed(2)} |`);
row('no listener', plain);
row('a PerformanceObserver on measure (for comparison)', observed);
row('an empty queue listener', listener);
row('+ serverTiming, outside a request', outside);
row('+ serverTiming, inside a request', inside);
if (otel !== null) row('+ traceMeasures (no-op tracer)', otel);

// HTTP: CPU time per request (client and server in this process; steadier than requests/s on a
// shared machine) for the same handler plain, inside a bare AsyncLocalStorage.run (what any
// per-request context costs in Node 20), and behind serverTiming; alternating rounds, medians.
const als = new AsyncLocalStorage();
const mwHttp = serverTiming();
const handler = (req, res) => {
  const t = performance.now();
  performance.measure('a', { start: t });
  performance.measure('b', { start: t });
  performance.measure('c', { start: t });
  res.end('ok');
};
const kinds = {
  'plain handler': handler,
  'in AsyncLocalStorage.run only': (req, res) => als.run({}, () => handler(req, res)),
  'behind serverTiming()': (req, res) => mwHttp(req, res, () => handler(req, res)),
};
let current = 'plain handler';
const server = createServer((req, res) => kinds[current](req, res));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const one = () =>
  new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: server.address().port, agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    })
      .on('error', reject)
      .end();
  });
async function cpuPerRequest(kind, n) {
  current = kind;
  const c0 = process.cpuUsage();
  let left = n;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (left-- > 0) await one();
    }),
  );
  const c = process.cpuUsage(c0);
  performance.clearMeasures();
  return (c.user + c.system) / n;
}
for (const k of Object.keys(kinds)) await cpuPerRequest(k, 500); // warm-up
const cpu = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
for (let r = 0; r < 7; r++)
  for (const k of Object.keys(kinds)) cpu[k].push(await cpuPerRequest(k, 1500));
agent.destroy();
await new Promise((r) => server.close(r));
const base = median(cpu['plain handler']);
console.log(
  '\nnode:http on 127.0.0.1, keep-alive, 8 clients, 3 measures per request: CPU µs per request, client + server (median of 7 alternating rounds of 1,500)',
);
console.log('| case | µs CPU / request | ratio |\n| --- | --- | --- |');
for (const k of Object.keys(kinds))
  console.log(`| ${k} | ${median(cpu[k]).toFixed(1)} | ${(median(cpu[k]) / base).toFixed(2)} |`);
