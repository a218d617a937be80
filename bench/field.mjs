// Field profiling bench (docs/field.md): the collector's uploads per second on one core for
// realistic uploads (10 s of samples at 10 ms over a few hundred frames), memory per 100,000
// distinct stacks in an aggregate, bytes per upload against Sentry's profile_chunk JSON and
// Datadog's deflated wall-time.json for the same trace, and symbolication throughput.
//   node bench/field.mjs [--quick]
import { execFileSync } from 'node:child_process';
import { deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenMapping, addMapping, toEncodedMap } from '@jridgewell/gen-mapping';
import { createField } from '../glue/field/core.js';
import { createCollector } from '../glue/field/collector.js';
import { createSymbolicator } from '../glue/field/symbolicate.js';
import { aggregateToPprof } from '../glue/field/pprof.js';
import { instantiateCore } from '../glue/host/loader.js';

const quick = process.argv.includes('--quick');
let seed = 7;
const rnd = (n) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) % n;

/** A visit: `samples` samples 10 ms apart over `frames` frames in 12 scripts, stacks 4-24 deep
 *  along a few hot paths (as a page's slow interactions look), a third of the samples idle. */
function visitTrace(samples = 1000, frames = 300, t0 = 1000) {
  const trace = { resources: [], frames: [], stacks: [], samples: [] };
  for (let r = 0; r < 12; r++)
    trace.resources.push(`https://shop.example/assets/chunk-${r}.a81f3c.js`);
  for (let f = 0; f < frames; f++)
    trace.frames.push({
      name: `${['render', 'update', 'parse', 'layoutItem', 'onClick'][f % 5]}${f}`,
      resourceId: f % 12,
      line: 1 + f * 17,
      column: 1 + (f % 90),
    });
  const edges = new Map();
  for (let i = 0; i < samples; i++) {
    const s = { timestamp: t0 + i * 10 };
    if (rnd(3)) {
      let parent;
      for (let d = 0, depth = 4 + rnd(20); d < depth; d++) {
        const frameId = (((parent ?? 11) * 2654435761 + rnd(3) * 40503) >>> 0) % frames;
        const key = `${parent}:${frameId}`;
        let id = edges.get(key);
        if (id === undefined) {
          id = trace.stacks.length;
          trace.stacks.push(parent === undefined ? { frameId } : { frameId, parentId: parent });
          edges.set(key, id);
        }
        parent = id;
      }
      s.stackId = parent;
    }
    trace.samples.push(s);
  }
  return trace;
}

const field = createField();
const trace = visitTrace();
const labels = { release: 'v42', route: '/cart', engine: 'firefox', device: 'mid' };
const h = field.trace();
field.codec.importTrace(h, trace);
const upload = field.encode(h, { labels, interval: 10 });
field.free(h);
const gz = gzipSync(upload);

// 1. Uploads per second through the collector's ingest (gunzip, validate, merge) on one core,
// where the time goes (gunzip, decode + validate, merge; the pprof encoding is per window, not
// per upload), and the same with the field core before the merge looked frames up once per trace
// (BEFORE, from git when the bench runs in a checkout).
const N = quick ? 300 : 2000;
function ingestRate(f) {
  const collector = createCollector({ windowSeconds: 3600, field: f });
  for (let i = 0; i < 50; i++) collector.ingest(gz); // warm up
  const t0 = performance.now();
  for (let i = 0; i < N; i++) collector.ingest(gz);
  const ms = (performance.now() - t0) / N;
  collector.close();
  return ms;
}
const ingestMs = ingestRate(field);
const parts = { gunzip: 0, decode: 0, merge: 0 };
{
  const a = field.aggregate(100000);
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const bytes = gunzipSync(gz);
    const t1 = performance.now();
    const v = field.decode(bytes);
    const t2 = performance.now();
    field.add(a, v.trace, v.interval);
    parts.gunzip += t1 - t0;
    parts.decode += t2 - t1;
    parts.merge += performance.now() - t2;
    field.free(v.trace);
  }
  const read = field.read(a);
  const t0 = performance.now();
  aggregateToPprof(read, { labels });
  parts.pprof = performance.now() - t0;
  field.freeAggregate(a);
}
const BEFORE = '70591be';
let beforeMs = null;
try {
  const old = execFileSync('git', ['show', `${BEFORE}:wasm/perfshim-field.wasm`], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  beforeMs = ingestRate(createField(instantiateCore(old)));
} catch {
  // not a git checkout: no comparison
}
// 2. Memory per 100,000 distinct stacks (the aggregate's own count of bytes held).
const agg = field.aggregate(200000);
let stacks = 0;
for (let v = 0; stacks < 100000; v++) {
  const t2 = visitTrace(1000, 300, 0);
  for (const f of t2.frames) f.name += `_v${v}`; // new frames: new stacks
  const h2 = field.trace();
  field.codec.importTrace(h2, t2);
  field.add(agg, h2, 10);
  field.free(h2);
  stacks = field.info(agg).stacks;
}
const info = field.info(agg);
const per100k = (info.bytes / info.stacks) * 100000;
field.freeAggregate(agg);

// 3. Bytes per upload for the same trace.
const frameOfStack = (id) => trace.frames[trace.stacks[id].frameId];
const sentryStacks = [],
  sentryIndex = new Map();
const sentry = {
  version: '2',
  profiler_id: '0b9f8a4c0d6e4f0a9e2b3c4d5e6f7a8b',
  chunk_id: '1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f',
  platform: 'javascript',
  release: 'v42',
  environment: 'production',
  client_sdk: { name: 'sentry.javascript.browser', version: '10.0.0' },
  profile: {
    frames: trace.frames.map((f) => ({
      function: f.name,
      abs_path: trace.resources[f.resourceId],
      lineno: f.line,
      colno: f.column,
    })),
    stacks: sentryStacks,
    samples: trace.samples.map((s) => {
      let id = -1;
      if (s.stackId !== undefined) {
        const frames = [];
        for (let k = s.stackId; k !== undefined; k = trace.stacks[k].parentId)
          frames.push(trace.stacks[k].frameId);
        const key = frames.join(',');
        id = sentryIndex.get(key);
        if (id === undefined) sentryIndex.set(key, (id = sentryStacks.push(frames) - 1));
      }
      return { stack_id: id, thread_id: '0', timestamp: 1764300000 + s.timestamp / 1000 };
    }),
    thread_metadata: { 0: { name: 'main' } },
  },
};
const sentryJson = Buffer.from(JSON.stringify(sentry));
const datadog = Buffer.from(
  JSON.stringify({
    ...trace,
    startClocks: { relative: 0, timeStamp: 1764300000000 },
    endClocks: { relative: 10000, timeStamp: 1764300010000 },
    clocksOrigin: { relative: 0, timeStamp: 1764300000000 },
    sampleInterval: 10,
    longTasks: [],
  }),
);
void frameOfStack;

// 4. Symbolication: frames per second through a source map of 20,000 mappings per script.
const dir = mkdtempSync(join(tmpdir(), 'perfshim-bench-maps-'));
for (let r = 0; r < 12; r++) {
  const map = new GenMapping({ file: `chunk-${r}.a81f3c.js` });
  for (let m = 0; m < 20000; m++)
    addMapping(map, {
      generated: { line: 1 + Math.floor(m / 40), column: (m % 40) * 3 },
      source: `src/mod${m % 50}.ts`,
      original: { line: 1 + m, column: 2 },
      name: `fn${m}`,
    });
  writeFileSync(join(dir, `chunk-${r}.a81f3c.js.map`), JSON.stringify(toEncodedMap(map)));
}
const symbolicate = createSymbolicator(dir);
symbolicate(trace); // maps parsed once
const ROUNDS = quick ? 50 : 300;
const t = performance.now();
for (let i = 0; i < ROUNDS; i++) symbolicate(trace);
const symMs = performance.now() - t;

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log('Field profiling (bench/field.mjs)');
console.log(
  `upload: ${trace.samples.length} samples at 10 ms, ${trace.frames.length} frames, ${trace.stacks.length} stacks`,
);
console.log('| measure | value |');
console.log('|---|---|');
console.log(
  `| collector ingest (gunzip + validate + merge), one core | ${(1000 / ingestMs).toFixed(0)} uploads/s (${ingestMs.toFixed(2)} ms each) |`,
);
const each = (k) => `${k} ${(parts[k] / N).toFixed(2)} ms`;
console.log(
  `| where an upload's time goes | ${each('gunzip')}, ${each('decode')} (+ validate), ${each('merge')}; pprof of the aggregate ${parts.pprof.toFixed(1)} ms per window |`,
);
if (beforeMs)
  console.log(
    `| collector ingest with the field core of ${BEFORE} (frames looked up per stack) | ${(1000 / beforeMs).toFixed(0)} uploads/s (${beforeMs.toFixed(2)} ms each) |`,
  );
console.log(
  `| aggregate memory per 100,000 distinct stacks | ${(per100k / 1048576).toFixed(1)} MB (${(info.bytes / info.stacks).toFixed(0)} B/stack, ${info.frames} frames) |`,
);
console.log(`| perfshim upload | ${kb(upload.length)} raw, ${kb(gz.length)} gzip |`);
console.log(
  `| Sentry profile_chunk JSON | ${kb(sentryJson.length)} raw, ${kb(gzipSync(sentryJson).length)} gzip |`,
);
console.log(
  `| Datadog wall-time.json | ${kb(datadog.length)} raw, ${kb(deflateSync(datadog).length)} deflated |`,
);
console.log(
  `| symbolication (12 maps of 20,000 mappings) | ${((ROUNDS * trace.frames.length) / (symMs / 1000) / 1e6).toFixed(2)} M frames/s |`,
);
