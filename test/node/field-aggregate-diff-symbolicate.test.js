// `perfshim aggregate` (uploads, gzipped uploads, ProfilerTrace JSON and .cpuprofile merged,
// grouped --by labels), `perfshim diff` (names the function that got slower between two
// releases, self and total) and `perfshim symbolicate` / the collector's --maps (minified frames
// back to original names and positions through a source map matched by script file name).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as pprof from 'pprof-format';
import { GenMapping, addMapping, toEncodedMap } from '@jridgewell/gen-mapping';
import { createField } from '../../glue/field/core.js';
import { createCollector } from '../../glue/field/collector.js';
import { createSymbolicator } from '../../glue/field/symbolicate.js';

const cli = (...args) =>
  execFileSync(process.execPath, ['glue/cli/perfshim.js', ...args], { encoding: 'utf8' });

/** A visit: `n` samples of main -> parse and main -> render, `parseShare` of them in parse. */
function visit(field, release, parseShare, n = 100) {
  const trace = {
    resources: ['https://shop.example/app.js'],
    frames: [
      { name: 'main', resourceId: 0, line: 1, column: 1 },
      { name: 'parse', resourceId: 0, line: 10, column: 1 },
      { name: 'render', resourceId: 0, line: 30, column: 1 },
    ],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }, { frameId: 2, parentId: 0 }],
    samples: Array.from({ length: n }, (_, i) => ({
      timestamp: i * 10,
      stackId: i < n * parseShare ? 1 : 2,
    })),
  };
  const h = field.trace();
  field.codec.importTrace(h, trace);
  const bytes = field.encode(h, { labels: { release, route: '/cart' }, interval: 10 });
  field.free(h);
  return { bytes, trace };
}

function leafCounts(file) {
  const p = pprof.Profile.decode(gunzipSync(readFileSync(file)));
  const s = (i) => p.stringTable.strings[Number(i)];
  const out = {};
  for (const smp of p.sample) {
    const loc = p.location.find((l) => l.id === smp.locationId[0]);
    const f = p.function.find((x) => x.id === loc.line[0].functionId);
    out[s(f.name)] = (out[s(f.name)] || 0) + Number(smp.value[0]);
  }
  return out;
}

test('aggregate merges every input kind, grouped by labels; diff names the slower function', () => {
  const field = createField();
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-agg-'));
  const files = [];
  for (const [i, [release, share]] of [
    ['v1', 0.2],
    ['v1', 0.2],
    ['v2', 0.6],
  ].entries()) {
    const { bytes } = visit(field, release, share);
    const f = join(dir, `visit${i}.bin`);
    writeFileSync(f, i === 1 ? gzipSync(bytes) : bytes);
    files.push(f);
  }
  // A ProfilerTrace JSON (no labels: its own group) and a .cpuprofile.
  writeFileSync(join(dir, 'trace.json'), JSON.stringify(visit(field, 'x', 0.5).trace));
  const cpu = {
    nodes: [
      {
        id: 1,
        callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 },
        children: [2],
      },
      {
        id: 2,
        callFrame: {
          functionName: 'parse',
          url: 'https://shop.example/app.js',
          lineNumber: 9,
          columnNumber: 0,
        },
      },
    ],
    startTime: 0,
    samples: [2, 2, 2],
    timeDeltas: [0, 10000, 10000],
  };
  writeFileSync(join(dir, 'p.cpuprofile'), JSON.stringify(cpu));
  const out = join(dir, 'merged.pb.gz');
  cli(
    'aggregate',
    ...files,
    join(dir, 'trace.json'),
    join(dir, 'p.cpuprofile'),
    '--by',
    'release',
    '-o',
    out,
  );
  const v1 = leafCounts(join(dir, 'merged.release=v1.pb.gz'));
  assert.deepEqual(v1, { parse: 40, render: 160 });
  assert.deepEqual(leafCounts(join(dir, 'merged.release=v2.pb.gz')), { parse: 60, render: 40 });
  assert.deepEqual(leafCounts(join(dir, 'merged.release=.pb.gz')), { parse: 53, render: 50 });
  // Everything in one file without --by.
  cli('aggregate', ...files, '-o', out);
  assert.deepEqual(leafCounts(out), { parse: 100, render: 200 });

  const diff = cli(
    'diff',
    join(dir, 'merged.release=v1.pb.gz'),
    join(dir, 'merged.release=v2.pb.gz'),
  );
  const [self, total] = diff.split(/total time share/);
  assert.match(self, /\+40\.0\s+20\.0% ->\s+60\.0%\s+parse/);
  assert.match(total, /\+40\.0\s+20\.0% ->\s+60\.0%\s+parse/);
  assert.doesNotMatch(total, /main/); // main's total share is 100% in both
  // Uploads straight in, too.
  assert.match(cli('diff', files[0], files[2]), /\+40\.0\s+20\.0% ->\s+60\.0%\s+parse/);
});

function minifiedFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-maps-'));
  const map = new GenMapping({ file: 'app.min.js' });
  addMapping(map, {
    generated: { line: 1, column: 10 },
    source: 'src/cart.ts',
    original: { line: 42, column: 4 },
    name: 'computeTotal',
  });
  mkdirSync(join(dir, 'maps'));
  writeFileSync(join(dir, 'maps', 'app.min.js.map'), JSON.stringify(toEncodedMap(map)));
  const trace = {
    resources: ['https://shop.example/assets/app.min.js?v=3', 'https://shop.example/other.js'],
    frames: [
      { name: 'a', resourceId: 0, line: 1, column: 11 },
      { name: 'b', resourceId: 1, line: 1, column: 1 },
    ],
    stacks: [{ frameId: 1 }, { frameId: 0, parentId: 0 }],
    samples: [
      { timestamp: 1, stackId: 1 },
      { timestamp: 2, stackId: 1 },
    ],
  };
  writeFileSync(join(dir, 'trace.json'), JSON.stringify(trace));
  return { dir, trace, maps: join(dir, 'maps') };
}

test('symbolicate maps minified frames through the map of their script; others stay', () => {
  const { dir, maps } = minifiedFixture();
  const t = JSON.parse(cli('symbolicate', join(dir, 'trace.json'), '--maps', maps));
  const f = t.frames.find((x) => x.name === 'computeTotal');
  assert.ok(f, JSON.stringify(t.frames));
  assert.equal(f.line, 42);
  assert.equal(f.column, 5);
  assert.match(t.resources[f.resourceId], /src\/cart\.ts$/);
  assert.ok(
    t.frames.some(
      (x) => x.name === 'b' && t.resources[x.resourceId] === 'https://shop.example/other.js',
    ),
  );
  assert.equal(t.samples.length, 2);
});

test('the collector symbolicates uploads with --maps', async () => {
  const { trace, maps } = minifiedFixture();
  const field = createField();
  const h = field.trace();
  field.codec.importTrace(h, trace);
  const bytes = field.encode(h, { labels: { release: 'v1' } });
  field.free(h);
  const out = mkdtempSync(join(tmpdir(), 'perfshim-out-'));
  const c = createCollector({ out, symbolicate: createSymbolicator(maps) });
  assert.deepEqual(c.ingest(bytes), [204, '']);
  const [file] = await c.close();
  assert.deepEqual(leafCounts(file), { computeTotal: 2 });
});
