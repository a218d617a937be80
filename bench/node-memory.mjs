// Memory per buffered mark (JS heap + external/ArrayBuffer memory, which holds the wasm core),
// after a full GC, for `host` (Node's perf_hooks) or `ours` (perfshim), N marks, 100 names.
// Run by bench/node.mjs with --expose-gc.
import { performance as ours } from '../glue/index.js';

const [which, countArg] = process.argv.slice(2);
const n = Number(countArg);
const p = which === 'ours' ? ours : globalThis.performance;
const names = Array.from({ length: 100 }, (_, i) => `name-${i}`);
const used = () => { globalThis.gc(); globalThis.gc(); const m = process.memoryUsage(); return m.heapUsed + m.external; };

p.mark('warm-up');
p.clearMarks();
const before = used();
const t0 = performance.now();
let ok = true;
try {
  for (let i = 0; i < n; i++) p.mark(names[i % 100]);
} catch (e) {
  ok = false;
  console.log(`${which}: ${n} marks: ${e.name}: ${e.message}`);
}
const after = used();
const ms = performance.now() - t0;
if (ok) {
  let count = 'n/a';
  try { count = p.getEntriesByType('mark').length; } catch (e) { count = `${e.name}`; }
  console.log(`${which === 'ours' ? 'perfshim' : 'node'}: ${n.toLocaleString('en')} marks buffered in ${(ms / 1000).toFixed(1)} s, ${((after - before) / n).toFixed(1)} B/mark (JS + wasm), getEntriesByType('mark').length = ${count}`);
}
