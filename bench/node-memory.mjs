// Memory per buffered mark (JS heap + external/ArrayBuffer memory, which holds the wasm core),
// after a full GC, for `host` (Node's perf_hooks) or `ours` (perfshim), N marks, from 100 names
// or (`unique`) a name of its own each, made as request ids are. For ours, the wasm memory
// before and after clearMarks(): a clear must never grow it. Run by bench/node.mjs with
// --expose-gc.
import { performance as ours } from '../glue/index.js';
import { loadCore } from '../glue/host/loader.js';

const [which, countArg, mode = 'shared'] = process.argv.slice(2);
const n = Number(countArg);
const p = which === 'ours' ? ours : globalThis.performance;
const names = Array.from({ length: 100 }, (_, i) => `name-${i}`);
const used = () => {
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};
const MB = (b) => `${(b / 1048576).toFixed(0)} MB`;

p.mark('warm-up');
p.clearMarks();
const before = used();
const t0 = performance.now();
let ok = true;
try {
  if (mode === 'unique') for (let i = 0; i < n; i++) p.mark(`request-${i}`);
  else for (let i = 0; i < n; i++) p.mark(names[i % 100]);
} catch (e) {
  ok = false;
  console.log(`${which}: ${n} marks: ${e.name}: ${e.message}`);
}
const after = used();
const ms = performance.now() - t0;
if (ok) {
  let count = 'n/a';
  try {
    count = p.getEntriesByType('mark').length;
  } catch (e) {
    count = `${e.name}`;
  }
  let clear = '';
  if (which === 'ours') {
    const memory = loadCore().memory;
    const full = memory.buffer.byteLength;
    const c0 = performance.now();
    p.clearMarks();
    const cms = performance.now() - c0;
    clear = `; wasm memory ${MB(full)} before clearMarks(), ${MB(memory.buffer.byteLength)} after (${cms.toFixed(1)} ms)`;
  }
  console.log(
    `${which === 'ours' ? 'perfshim' : 'node'}: ${n.toLocaleString('en')} marks (${mode === 'unique' ? 'a unique name each' : '100 names'}) buffered in ${(ms / 1000).toFixed(1)} s, ${((after - before) / n).toFixed(1)} B/mark (JS + wasm), getEntriesByType('mark').length = ${count}${clear}`,
  );
}
