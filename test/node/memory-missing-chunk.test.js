// Measure Memory's code is a file of its own beside the bundle (dist/perfshim-memory.mjs), loaded
// on the first call. Where it was not served (a Rollup build, which leaves the split import()
// to the file beside it), measureUserAgentSpecificMemory() rejects with a NotSupportedError that
// says which file is missing (not import()'s bare TypeError), and tries again on the next call.
import test from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

test('a missing Measure Memory file: NotSupportedError naming it, and a later call retries', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-nochunk-'));
  copyFileSync(join(dist, 'perfshim.mjs'), join(dir, 'perfshim.mjs'));
  // (a realm of its own: the global realm key is shared by every copy loaded in this process)
  const src = `const { performance } = await import(${JSON.stringify(pathToFileURL(join(dir, 'perfshim.mjs')).href)});
    const out = [];
    try { await performance.measureUserAgentSpecificMemory(); out.push('resolved'); }
    catch (e) { out.push([e.name, e.constructor.name, /perfshim-memory/.test(e.message)]); }
    const { copyFileSync } = await import('node:fs');
    copyFileSync(${JSON.stringify(join(dist, 'perfshim-memory.mjs'))}, ${JSON.stringify(join(dir, 'perfshim-memory.mjs'))});
    const r = await performance.measureUserAgentSpecificMemory();
    out.push(typeof r.bytes);
    console.log(JSON.stringify(out));`;
  const { execFileSync } = await import('node:child_process');
  const out = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', src], { encoding: 'utf8' }),
  );
  assert.deepEqual(out, [['NotSupportedError', 'DOMException', true], 'number']);
});
