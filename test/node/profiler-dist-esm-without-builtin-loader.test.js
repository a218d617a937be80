// The ES module bundle (dist/perfshim.mjs) on a Node without process.getBuiltinModule (18 to
// 20.15): the Node source loads node:inspector asynchronously at import, and a Profiler made a
// few milliseconds later samples. Before, esbuild's `require` stand-in (a function that throws
// "Dynamic require") passed for a real require, so no inspector ever loaded and every
// `new Profiler()` was a NotAllowedError. Simulated on this Node by deleting getBuiltinModule.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = pathToFileURL(fileURLToPath(new URL('../../dist/perfshim.mjs', import.meta.url))).href;

test('dist/perfshim.mjs without getBuiltinModule: the Profiler samples once the inspector loaded', () => {
  const src = `delete process.getBuiltinModule;
    const { Profiler } = await import(${JSON.stringify(DIST)});
    let p, refused = 0;
    for (;;) {
      try { p = new Profiler({ sampleInterval: 1, maxBufferSize: 1000 }); break; }
      catch (e) {
        if (e.name !== 'NotAllowedError' || ++refused > 500) { console.log(JSON.stringify({ error: e.message })); process.exit(0); }
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    const end = Date.now() + 50; let x = 0; while (Date.now() < end) x++;
    const t = await p.stop();
    console.log(JSON.stringify({ samples: t.samples.length }));`;
  const r = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', src], { encoding: 'utf8' }),
  );
  assert.equal(r.error, undefined, r.error);
  assert.ok(r.samples > 0, JSON.stringify(r));
});
