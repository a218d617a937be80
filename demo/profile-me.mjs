// A sample script for `make example` (perfshim profile): some CPU work on the main thread, a
// worker thread, and the marks and measures an application would make.
import { Worker } from 'node:worker_threads';

function makeOrders(n) {
  const orders = [];
  for (let i = 0; i < n; i++)
    orders.push({
      id: i,
      items: Array.from({ length: 1 + (i % 7) }, (_, k) => ({
        sku: `s${k}`,
        price: (i * 31 + k * 17) % 100,
      })),
    });
  return orders;
}

function serialize(orders) {
  return JSON.stringify(orders);
}
function parse(text) {
  return JSON.parse(text);
}
function total(orders) {
  let sum = 0;
  for (const o of orders) for (const it of o.items) sum += it.price;
  return sum;
}

const worker = new Worker(new URL('./profile-me-worker.mjs', import.meta.url), { workerData: 40 });
const primes = new Promise((resolve) => worker.once('message', resolve));

for (let round = 0; round < 5; round++) {
  performance.mark(`round-${round}`);
  const text = serialize(makeOrders(20_000));
  performance.measure('serialize', {
    start: `round-${round}`,
    detail: { round, bytes: text.length },
  });
  const t = performance.now();
  const sum = total(parse(text));
  performance.measure('parse+total', { start: t, detail: { round, sum } });
}
console.log(`the worker counted ${await primes} primes`);
