// Export bench: each exporter on a synthetic trace shaped like a long recording (100,000 samples
// over a broad, 20-deep call tree), median of a few runs; plus the .cpuprofile import.
//   node bench/export.mjs [--quick]
import { createCore } from '../glue/host/loader.js';
import { createExporters } from '../glue/export/export.js';

const quick = process.argv.includes('--quick');
const SAMPLES = quick ? 20000 : 100000,
  FRAMES = 2000,
  DEPTH = 20,
  RUNS = quick ? 3 : 5;

// Deterministic pseudo-random tree: each sample walks DEPTH levels choosing among few children.
let seed = 1;
const rnd = (n) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) % n;
const trace = { resources: [], frames: [], stacks: [], samples: [] };
for (let r = 0; r < 40; r++) trace.resources.push(`https://example.test/bundle-${r}.js`);
for (let f = 0; f < FRAMES; f++)
  trace.frames.push({
    name: `fn_${f.toString(36)}_handler`,
    resourceId: f % 40,
    line: 1 + f * 3,
    column: 1 + (f % 80),
  });
const edges = new Map();
for (let i = 0; i < SAMPLES; i++) {
  let parent;
  for (let d = 0, depth = 1 + rnd(DEPTH); d < depth; d++) {
    const frameId =
      (((parent === undefined ? 7 : parent) * 2654435761 + rnd(6) * 40503) >>> 0) % FRAMES;
    const key = `${parent}/${frameId}`;
    let id = edges.get(key);
    if (id === undefined) {
      id = trace.stacks.length;
      edges.set(key, id);
      trace.stacks.push(parent === undefined ? { frameId } : { frameId, parentId: parent });
    }
    parent = id;
  }
  trace.samples.push({ timestamp: 1000 + i * 1.0003, stackId: parent });
}

const ex = createExporters(createCore());
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
function bench(name, fn) {
  let out;
  const times = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    out = fn();
    times.push(performance.now() - t0);
  }
  const bytes = typeof out === 'string' ? out.length : JSON.stringify(out).length;
  console.log(
    `${name.padEnd(28)} ${median(times).toFixed(1).padStart(8)} ms  ${(bytes / 1024).toFixed(0).padStart(7)} KB JSON`,
  );
  return out;
}

console.log(
  `trace: ${trace.samples.length} samples, ${trace.stacks.length} stacks, ${trace.frames.length} frames; median of ${RUNS}`,
);
const cp = bench('toCpuProfile', () => ex.toCpuProfile(trace));
bench('toTraceEvents', () => ex.toTraceEvents(trace));
bench('toSpeedscope', () => ex.toSpeedscope(trace));
bench('toFirefoxProfile', () => ex.toFirefoxProfile(trace));
const text = JSON.stringify(cp);
bench('fromCpuProfile (JSON text)', () => ex.fromCpuProfile(text));
