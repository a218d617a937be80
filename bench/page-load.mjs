// make bench (page load): what a classic <script> of perfshim costs a page that never profiles.
// Each script is inlined into a fresh page and run there, side by side with an empty script,
// rounds interleaved (the order rotates each round), in Chromium, Firefox and WebKit
// (PERFSHIM_ENGINES picks some). The page reads the script's text from a non-executed
// <script type=text/plain> once the document is parsed, appends it as an inline classic script
// and times that append: parse, compile, evaluation and install, with no network and no HTML
// parsing in the figure (a 170 KB inline script otherwise includes its own transfer). A nonce
// comment makes every run's text unique (no engine's in-memory compilation cache). The page is
// cross-origin isolated (the finest performance.now() in every engine). Prints, per engine, the
// median over the empty script's median, the fastest run (a loaded machine moves the median,
// not the floor), where it went (the script's compile: until its first statement runs; its run:
// evaluation and install, from its first statement to its last), and what was deferred: the
// first mark() (the eager core decoded, compiled and instantiated) and the first exporter call
// (the profiler/export core). Then the eager bytes of every entry. `--base=<rev>` adds the scripts committed at <rev> (before/after).
//   node bench/page-load.mjs [--rounds=15] [--base=HEAD~3] [--also=build/x.auto.js,...]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { launchEngine, selectedEngines, serve } from '../test/browser/harness.js';

const arg = (name, fallback) =>
  (process.argv.find((a) => a.startsWith(`--${name}=`)) || '').split('=')[1] || fallback;
const ROUNDS = Number(arg('rounds', process.env.ROUNDS || 15));
const BASE = arg('base', '');

// [label, path] of the classic scripts; the goals are issue 25's (ms over an empty script).
const SCRIPTS = [
  ['perfshim.auto.js', 'dist/perfshim.auto.js', 5],
  ['perfshim.timeline.auto.js', 'dist/perfshim.timeline.auto.js', 2],
];
const variants = [{ label: 'empty script', text: '' }];
for (const [label, path, goal] of SCRIPTS) {
  if (BASE)
    variants.push({
      label: `${label} @${BASE}`,
      text: execFileSync('git', ['show', `${BASE}:${path}`], { encoding: 'utf8' }),
      goal,
    });
  variants.push({ label, text: readFileSync(path, 'utf8'), goal });
}
// `--also=a.js,b.js`: other classic scripts side by side (e.g. a variant being tried).
for (const path of arg('also', '').split(',').filter(Boolean))
  variants.push({ label: path, text: readFileSync(path, 'utf8'), goal: 5 });

const RUNNER = `<script>
const text = document.getElementById('src').textContent;
const s = document.createElement('script');
// (the first and last statements stamp the clock: compile before the first, run between them)
s.textContent = 'self.__pl=[performance.now()];' + text + '\\n;__pl.push(performance.now())//' + Math.random();
const t0 = performance.now();
document.head.appendChild(s);
const t1 = performance.now();
const [ran, end] = self.__pl;
const p = globalThis.perfshim;
let mark = NaN, exporter = NaN;
if (p) {
  p.performance.mark('first');
  const t2 = performance.now();
  if (p.toCpuProfile) p.toCpuProfile({ resources: [], frames: [], stacks: [], samples: [] });
  mark = t2 - t1;
  exporter = p.toCpuProfile ? performance.now() - t2 : NaN;
}
window.result = { load: t1 - t0, compile: ran - t0, run: end - ran, mark, exporter, installed: !text || !!p };
</script>`;
const page = (text) => `<!doctype html><script type=text/plain id=src>${text}</script>${RUNNER}`;
const slug = (i) => `/page-load-${i}.html`;
const routes = {};
variants.forEach((v, i) => {
  if (/<\/script/i.test(v.text)) throw new Error(`${v.label} cannot be inlined: it has </script`);
  routes[slug(i)] = { body: page(v.text) };
});
const server = await serve({
  routes,
  headers: () => ({
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
  }),
});

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const ms = (x) => (Number.isFinite(x) ? x.toFixed(2) : '');
try {
  for (const engine of selectedEngines()) {
    const browser = await launchEngine(engine);
    const runs = variants.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + round) % variants.length;
        const tab = await browser.newPage();
        await tab.goto(`${server.url}${slug(i)}`);
        const r = await tab.evaluate(() => window.result);
        const errors = await tab.errors();
        if (!r || !r.installed || errors.length)
          throw new Error(`${engine}, ${variants[i].label}: ${errors.join('\n') || 'no result'}`);
        runs[i].push(r);
        await tab.close();
      }
    }
    const empty = median(runs[0].map((r) => r.load));
    const emptyCompile = median(runs[0].map((r) => r.compile));
    console.log(
      `\nPage load, ${engine} ${browser.version}: eval + install of the inlined script, over an empty script (${ms(empty)} ms); median of ${ROUNDS} fresh pages, interleaved`,
    );
    console.table(
      variants.slice(1).map((v, j) => {
        const rs = runs[j + 1];
        return {
          script: v.label,
          'eval + install (ms)': ms(median(rs.map((r) => r.load)) - empty),
          'fastest (ms)': ms(Math.min(...rs.map((r) => r.load)) - empty),
          goal: `≤ ${v.goal}`,
          // (medians of their own: they need not add up to the total's)
          'compile (ms)': ms(median(rs.map((r) => r.compile)) - emptyCompile),
          'run (ms)': ms(median(rs.map((r) => r.run))),
          'first mark() (ms)': ms(median(rs.map((r) => r.mark))),
          'first exporter call (ms)': ms(median(rs.map((r) => r.exporter))),
        };
      }),
    );
    await browser.close();
  }
} finally {
  await server.close();
}

// Eager bytes: what loading each entry fetches and parses before any first use (gzip -9).
const gz = (path) => gzipSync(readFileSync(path), { level: 9 }).length;
const ENTRIES = [
  ['<script src=perfshim.auto.js>', 'dist/perfshim.auto.js', ''],
  ['<script src=perfshim.timeline.auto.js>', 'dist/perfshim.timeline.auto.js', ''],
  ["import 'perfshim' (node, default)", 'dist/perfshim.mjs', 'dist/perfshim-memory.mjs'],
  ["import 'perfshim' (browser)", 'dist/perfshim.browser.mjs', 'dist/perfshim-memory.browser.mjs'],
  ["require('perfshim')", 'dist/perfshim.cjs', 'dist/perfshim-memory.mjs'],
  ["import 'perfshim/timeline'", 'dist/timeline.mjs', ''],
  ["require('perfshim/timeline')", 'dist/timeline.cjs', ''],
];
console.log('\nEager bytes per entry (the file a user loads, cores embedded; gzip -9)');
console.table(
  ENTRIES.map(([entry, path, lazy]) => ({
    entry,
    file: path,
    'raw (KB)': (readFileSync(path).length / 1024).toFixed(1),
    'gzipped (KB)': (gz(path) / 1024).toFixed(1),
    'loaded on first use (gzipped KB)': lazy ? `${(gz(lazy) / 1024).toFixed(1)} (${lazy})` : '',
  })),
);
