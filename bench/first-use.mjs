// The first mark()'s cost and the gzipped size of the full bundle with the core embedded one
// character per byte (as dist/ ships it, tools/embed-wasm.mjs) against the core embedded as
// base64 (as before issue 9's size work; decoded with atob): two bundles of glue/index.js that
// differ only in that, each imported in a fresh Node process per round, rounds interleaved,
// medians. Prints import time, first mark() (the core is decoded, compiled and instantiated
// there) and the gzipped size of each bundle (esbuild only, no terser). Then the same two
// bundles in Chromium (a fresh page per round).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { embeddedModule } from '../tools/embed-wasm.mjs';
import { serve, launch } from '../test/browser/harness.js';

const ROUNDS = Number(process.env.ROUNDS || 15);
mkdirSync('build/first-use', { recursive: true });

async function bundle(file, base64) {
  const bytes = readFileSync('wasm/perfshim.wasm');
  const contents = base64
    ? `export const wasmBytes = atob('${bytes.toString('base64')}');`
    : embeddedModule(bytes, 'wasm/perfshim.wasm');
  const core = {
    name: 'core',
    setup(b) {
      b.onResolve({ filter: /(^|\/)perfshim\.wasm\.js$/ }, () => ({
        path: 'core',
        namespace: 'core',
      }));
      b.onLoad({ filter: /.*/, namespace: 'core' }, () => ({
        contents,
        resolveDir: process.cwd(),
      }));
      b.onResolve({ filter: /^\.\/measure-memory\.js$/ }, () => ({
        path: './x.mjs',
        external: true,
      }));
    },
  };
  const r = await build({
    entryPoints: ['glue/index.js'],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    external: ['node:*'],
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    target: 'es2022',
    plugins: [core],
  });
  writeFileSync(file, r.outputFiles[0].contents);
  return gzipSync(r.outputFiles[0].contents, { level: 9 }).length / 1024;
}

const variants = {
  base64: ['build/first-use/base64.mjs', true],
  'byte string': ['build/first-use/bytes.mjs', false],
};
const size = {};
for (const [name, [file, base64]] of Object.entries(variants))
  size[name] = await bundle(file, base64);

const probe = (file) => `
  const t0 = performance.now();
  const m = await import(${JSON.stringify(`${process.cwd()}/${file}`)});
  const t1 = performance.now();
  m.performance.mark('first');
  const t2 = performance.now();
  m.performance.mark('second');
  const t3 = performance.now();
  console.log(JSON.stringify([t1 - t0, t2 - t1, t3 - t2]));`;
const env = { ...process.env };
delete env.PERFSHIM_WASM;
const runs = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, [file]] of Object.entries(variants)) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe(file)], {
      env,
      encoding: 'utf8',
    });
    runs[name].push(JSON.parse(out));
  }
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
console.log(
  `first use of the full bundle, Node ${process.version}, ${ROUNDS} interleaved rounds (medians)`,
);
for (const [name, rs] of Object.entries(runs)) {
  const [imp, first, second] = [0, 1, 2].map((k) => median(rs.map((r) => r[k])).toFixed(2));
  console.log(
    `  ${name.padEnd(16)} ${size[name].toFixed(1)} KB gzipped; import ${imp} ms, first mark() ${first} ms, second ${second} ms`,
  );
}

// Chromium: each bundle imported by a fresh page, rounds interleaved.
const page = (file) => `<!doctype html><script type=module>
  const t0 = performance.now();
  const m = await import('/${file}');
  const t1 = performance.now();
  m.performance.mark('first');
  const t2 = performance.now();
  window.result = [t1 - t0, t2 - t1];
</script>`;
const browserVariants = { base64: 'base64.mjs', 'byte string': 'bytes.mjs' };
const routes = {};
for (const [name, file] of Object.entries(browserVariants)) {
  routes[`/${file}`] = {
    type: 'text/javascript',
    body: readFileSync(`build/first-use/${file}`, 'utf8'),
  };
  routes[`/${name.replace(/\W+/g, '-')}.html`] = { body: page(file) };
}
const server = await serve({ routes });
const browser = await launch();
try {
  const brs = Object.fromEntries(Object.keys(browserVariants).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(browserVariants)) {
      const tab = await browser.newPage();
      await tab.goto(`${server.url}/${name.replace(/\W+/g, '-')}.html`);
      await tab.waitForFunction(() => Array.isArray(window.result));
      brs[name].push(await tab.evaluate(() => window.result));
      await tab.close();
    }
  }
  console.log(`Chromium ${browser.version()}, ${ROUNDS} interleaved rounds (medians)`);
  for (const [name, rs] of Object.entries(brs)) {
    const [imp, first] = [0, 1].map((k) => median(rs.map((r) => r[k])).toFixed(2));
    console.log(`  ${name.padEnd(16)} import ${imp} ms, first mark() ${first} ms`);
  }
} finally {
  await browser.close();
  await server.close();
}
