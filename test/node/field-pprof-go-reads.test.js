// `go tool pprof` (Go's reference reader; tools/install-deps.sh installs golang-go) reads the
// collector's pprof files and `perfshim aggregate`'s: -top names the page's functions with their
// wall time, -raw shows the visit's labels and the `measure` label of the samples inside a
// measure, and -tagfocus selects by them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCollector } from '../../glue/field/collector.js';
import { createField } from '../../glue/field/core.js';

const CLI = fileURLToPath(new URL('../../glue/cli/perfshim.js', import.meta.url));
const pprof = (...args) => execFileSync('go', ['tool', 'pprof', ...args], { encoding: 'utf8' });

/** An upload: main > hot, 20 samples 10 ms apart (one in four in main itself), a measure
 *  'checkout' over samples 4-10. */
function upload(field) {
  const h = field.trace();
  field.codec.importTrace(h, {
    resources: ['https://shop.example/app.js'],
    frames: [
      { name: 'main', resourceId: 0, line: 1, column: 1 },
      { name: 'hot', resourceId: 0, line: 20, column: 3 },
    ],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples: Array.from({ length: 20 }, (_, i) => ({
      timestamp: 100 + i * 10,
      stackId: i % 4 ? 1 : 0,
    })),
  });
  const entries = [{ name: 'checkout', entryType: 'measure', startTime: 140, duration: 60 }];
  const bytes = field.encode(h, { labels: { release: 'v9', route: '/cart' }, entries });
  field.free(h);
  return bytes;
}

/** {function: [flat ms, cum ms]} of `go tool pprof -top`. */
function top(file, ...args) {
  const out = pprof('-top', ...args, file);
  assert.match(out, /Type: wall/);
  const rows = {};
  for (const m of out.matchAll(
    /^\s*([\d.]+)ms\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)ms\s+[\d.]+%\s+(\S+)$/gm,
  ))
    rows[m[3]] = [Number(m[1]), Number(m[2])];
  return rows;
}

test('go tool pprof reads the collector pprof: functions, labels, measures', async (t) => {
  try {
    execFileSync('go', ['version']);
  } catch {
    assert.fail('go is missing: run tools/install-deps.sh (Debian golang-go)');
  }
  const field = createField();
  const out = mkdtempSync(join(tmpdir(), 'perfshim-field-go-'));
  const c = createCollector({ out, windowSeconds: 3600 });
  c.ingest(upload(field));
  c.ingest(upload(field));
  const [file] = await c.close();
  assert.deepEqual(top(file), { hot: [300, 300], main: [100, 400] });
  // Samples 4-10 (140-200 ms): 5 in hot, 2 in main, twice.
  assert.deepEqual(top(file, '-tagfocus', 'measure=checkout'), {
    hot: [100, 100],
    main: [40, 140],
  });
  assert.deepEqual(top(file, '-tagfocus', 'route=/cart'), { hot: [300, 300], main: [100, 400] });
  assert.deepEqual(top(file, '-tagfocus', 'release=v8'), {});
  const raw = pprof('-raw', file);
  assert.match(raw, /measure:\[checkout\] release:\[v9\] route:\[\/cart\]/);
  assert.match(raw, /^\s+release:\[v9\] route:\[\/cart\]$/m); // outside the measure
  assert.match(raw, /hot https:\/\/shop\.example\/app\.js:20/);

  await t.test('and perfshim aggregate output', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfshim-field-go-'));
    const a = join(dir, 'a.psf'),
      merged = join(dir, 'merged.pb.gz');
    writeFileSync(a, upload(field));
    execFileSync(process.execPath, [CLI, 'aggregate', a, a, a, '-o', merged]);
    assert.deepEqual(top(merged), { hot: [450, 450], main: [150, 600] });
    assert.deepEqual(top(merged, '-tagfocus', 'measure=checkout'), {
      hot: [150, 150],
      main: [60, 210],
    });
  });
});
