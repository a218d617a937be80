// The cost of the Node integrations, side by side in one run (ratios, not absolute speeds):
//   1. performance.measure() with no listener, with a PerformanceObserver (what any observer
//      costs), with serverTiming's listener outside a request,
//      inside a request, and with traceMeasures() (no-op tracer: the listener's own cost);
//   2. node:http requests per second through 127.0.0.1 without and with the middleware
//      (3 measures per request), alternating rounds, medians.
// Run: node bench/node-integrations.mjs
import { createServer, request, Agent } from 'node:http';
import { performance, PerformanceObserver } from '../glue/index.js';
import { serverTiming } from '../glue/node/server-timing.js';
import { onQueued } from '../glue/node/queue-hook.js';

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

function measureLoop(n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) performance.measure('bench', { start: 0, duration: 1 });
  const ns = ((performance.now() - t0) * 1e6) / n;
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
const plainRounds = [], listenerRounds = [], observerRounds = [];
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
const inside = nsPerMeasure((f) => { let v; mw({ on() {} }, { ...fakeRes, on() {} }, () => { v = f(); }); return v; });

let otel = null;
try {
  const { traceMeasures } = await import('../glue/node/opentelemetry.js');
  const stop = traceMeasures(); // no SDK registered: the API's no-op tracer
  otel = nsPerMeasure((f) => f());
  stop();
} catch { /* @opentelemetry/api not installed */ }

console.log('performance.measure(), ns per call (median of 7 rounds of 20,000)');
console.log('| case | ns | ratio to no listener |\n| --- | --- | --- |');
const row = (name, v) => console.log(`| ${name} | ${v.toFixed(0)} | ${(v / plain).toFixed(2)} |`);
row('no listener', plain);
row('a PerformanceObserver on measure (for comparison)', observed);
row('an empty queue listener', listener);
row('+ serverTiming, outside a request', outside);
row('+ serverTiming, inside a request', inside);
if (otel !== null) row('+ traceMeasures (no-op tracer)', otel);

// HTTP: the same handler with and without the middleware.
async function rps(useMiddleware, ms) {
  const mwHttp = serverTiming();
  const handler = (req, res) => {
    const t = performance.now();
    performance.measure('a', { start: t });
    performance.measure('b', { start: t });
    performance.measure('c', { start: t });
    res.end('ok');
  };
  const server = createServer(useMiddleware ? (req, res) => mwHttp(req, res, () => handler(req, res)) : handler);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const port = server.address().port;
  let done = 0;
  const end = performance.now() + ms;
  const one = () => new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, agent }, (res) => { res.resume(); res.on('end', resolve); }).on('error', reject).end();
  });
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (performance.now() < end) { await one(); done++; }
  }));
  agent.destroy();
  await new Promise((r) => server.close(r));
  if (!useMiddleware) performance.clearMeasures();
  return done / (ms / 1000);
}

const without = [], withMw = [];
for (let r = 0; r < 5; r++) {
  without.push(await rps(false, 1000));
  withMw.push(await rps(true, 1000));
}
console.log('\nnode:http on 127.0.0.1, keep-alive, 8 clients, 3 measures per request (median of 5 alternating 1 s rounds)');
console.log('| case | requests/s | ratio |\n| --- | --- | --- |');
console.log(`| without serverTiming | ${median(without).toFixed(0)} | 1.00 |`);
console.log(`| with serverTiming | ${median(withMw).toFixed(0)} | ${(median(withMw) / median(without)).toFixed(2)} |`);
