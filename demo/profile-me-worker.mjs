// The worker of demo/profile-me.mjs: counts primes for a while, with a measure.
import { parentPort, workerData } from 'node:worker_threads';

function isPrime(n) {
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return n > 1;
}
function countPrimes(limit) {
  let c = 0;
  for (let n = 2; n < limit; n++) if (isPrime(n)) c++;
  return c;
}

const t = performance.now();
const count = countPrimes(workerData * 10_000);
performance.measure('countPrimes', { start: t, detail: { limit: workerData * 10_000 } });
parentPort.postMessage(count);
