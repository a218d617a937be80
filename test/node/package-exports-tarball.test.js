// Every target of package.json's exports map exists in the packed tarball and loads: `npm pack`,
// install the tarball (and its runtime dependencies, packed from node_modules) into an empty
// project (offline), then import every export (ESM) and
// require every CommonJS-loadable one. Reads the exports map, so new exports are covered too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const npm = (args, cwd) =>
  execFileSync('npm', [...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_cache: join(work, 'cache') },
  });
let work, project, pkg;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'perfshim-pack-'));
  const tarball = JSON.parse(npm(['pack', '--json', '--pack-destination', work], root))[0].filename;
  project = join(work, 'project');
  execFileSync('mkdir', [project]);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'empty', version: '1.0.0', private: true }),
  );
  // The package's runtime dependencies come from this checkout's node_modules, packed the same
  // way, so the install stays offline and still resolves exactly what package.json declares.
  // With their own dependencies, transitively (node_modules is flat for them).
  const deps = new Set();
  const visit = (d) => {
    if (deps.has(d)) return;
    deps.add(d);
    const own = JSON.parse(
      readFileSync(join(root, 'node_modules', d, 'package.json'), 'utf8'),
    ).dependencies;
    for (const k of Object.keys(own || {})) visit(k);
  };
  for (const d of Object.keys(
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies || {},
  ))
    visit(d);
  const depTarballs = [...deps].map((d) =>
    join(
      work,
      JSON.parse(
        npm(
          [
            'pack',
            '--json',
            '--ignore-scripts',
            '--pack-destination',
            work,
            join(root, 'node_modules', d),
          ],
          root,
        ),
      )[0].filename,
    ),
  );
  npm(['install', '--no-package-lock', join(work, tarball), ...depTarballs], project);
  pkg = JSON.parse(readFileSync(join(project, 'node_modules/perfshim/package.json'), 'utf8'));
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** [subpath, condition, target] for every leaf of the exports map. */
function targets(exp) {
  const out = [];
  const walk = (sub, cond, v) => {
    if (typeof v === 'string') out.push([sub, cond, v]);
    else if (v && typeof v === 'object')
      for (const [k, w] of Object.entries(v)) walk(sub, cond ? `${cond}.${k}` : k, w);
  };
  for (const [sub, v] of Object.entries(exp)) walk(sub, '', v);
  return out;
}

test('every export target is a file in the installed tarball', () => {
  const all = targets(pkg.exports);
  assert.ok(all.length >= 6, 'the exports map is read');
  const missing = all.filter(([, , t]) => !existsSync(join(project, 'node_modules/perfshim', t)));
  assert.deepEqual(missing, [], 'export targets missing from the packed package');
});

test('every export imports (ESM) and every CommonJS-loadable one requires, from the installed package', () => {
  const specs = Object.keys(pkg.exports)
    .filter((s) => !s.includes('*'))
    .map((s) => `perfshim${s.slice(1)}`);
  // What `require` can load: a 'require' or 'default' condition, or a .cjs/.json file.
  const requirable = Object.entries(pkg.exports)
    .filter(([, v]) =>
      typeof v === 'string'
        ? /\.(cjs|json)$/.test(v)
        : 'require' in v || /\.(cjs|json)$/.test(v.default || ''),
    )
    .map(([s]) => `perfshim${s.slice(1)}`);
  writeFileSync(
    join(project, 'check.mjs'),
    `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const out = { imported: [], required: [] };
    for (const s of ${JSON.stringify(specs)}) {
      const m = s.endsWith('.json') ? await import(s, { with: { type: 'json' } }) : await import(s);
      out.imported.push([s, Object.keys(m).length > 0 || s.endsWith('.js')]);
    }
    for (const s of ${JSON.stringify(requirable)}) out.required.push([s, typeof require(s) === 'object']);
    // The main entries are the real API, in both module systems.
    out.esmMark = (await import('perfshim')).performance.mark('esm').name;
    out.cjsMark = require('perfshim').performance.mark('cjs').name;
    console.log(JSON.stringify(out));`,
  );
  // The installed package as a user gets it: its own (release) wasm, not the suite's PERFSHIM_WASM.
  const env = { ...process.env };
  delete env.PERFSHIM_WASM;
  const out = JSON.parse(
    execFileSync(process.execPath, ['check.mjs'], { cwd: project, encoding: 'utf8', env }),
  );
  assert.deepEqual(
    out.imported.map(([s]) => s),
    specs,
  );
  for (const [s, ok] of out.imported) assert.ok(ok, `import('${s}') has exports`);
  assert.ok(requirable.includes('perfshim') && requirable.includes('perfshim/auto'));
  assert.deepEqual(
    out.required,
    requirable.map((s) => [s, true]),
  );
  assert.equal(out.esmMark, 'esm');
  assert.equal(out.cjsMark, 'cjs');
});
