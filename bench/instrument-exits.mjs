// Micro-bench of an instrumented function's entry and exit forms (docs/instrument.md, "What the
// no-profiler cost is made of" and "Designs measured and not kept"): ns per
// instrumented call of a loop calling `mid`, which calls `leaf` 4 times (5 instrumented calls
// per iteration), with no profiler's logger. Variants, each its own module and probe object,
// timed in interleaved rounds (every variant in every position in turn), medians with the
// rounds' 25th–75th percentile:
//   plain        the source as it is
//   off          the transform's output, switch off (no profiler: the probes keep no stack; a
//                return of a value that calls nothing, as all of these do, pops first:
//                `return (__pst && __ps.x(__pst), E)`, no call while the switch is off)
//   off/identity the same with each return written `__psr((E), __pst)`, a call of the probes'
//                identity at every return (the form every return had before)
//   on           the transform's output with the switch on (the stack kept through the probes'
//                calls, as while a profiler runs, minus the logger's calls)
//   node bench/instrument-exits.mjs [--engines=node,chromium,firefox,webkit] [--rounds=N]
//     [--n=N]  N: iterations per timed loop (default 200,000 = 1e6 instrumented calls; Firefox's
//              and WebKit's unisolated clocks step by 1 ms, so 2,000,000 gives 0.1 ns steps)
// Run it under the machine-wide bench lock (flock /work/bench.lock ...) on a shared machine.
import { loadavg } from 'node:os';
import { instrument } from '../glue/instrument/transform.js';
import { PROBES_KEY } from '../glue/instrument/probes.js';

const arg = (name) =>
  (process.argv.find((a) => a.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const ROUNDS = Number(arg('rounds')) || 15;
const ENGINES = (arg('engines') || 'node,chromium,firefox').split(',');
const N = Number(arg('n')) || 200000; // iterations per timed loop: 1e6 instrumented calls

const src = `
export function leaf(x) { if (x < 0) return 0; return (x * 31 + 7) | 0; }
export function mid(x) { let s = 0; s += leaf(x); s += leaf(s); s += leaf(s); s += leaf(s); return s | 0; }
export function loop(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + mid(i)) | 0; return s; }`;

// (every function: `leaf` is tiny, and its exits are what is timed)
const out = instrument(src, { file: 'exits.js', everyFunction: true }).code;
// The switch on for the module's own probes (its header has run: `__ps` is set).
const on = (code) => `${code}\n__ps.use(1);`;
// (the returns here hold no `);` of their own)
const RET = /return {2}\(__pst&&__ps\.x\(__pst\),(.*?)\);/g;
const identity = out.replace(RET, 'return  __psr(($1),__pst);');
if (
  out.includes('try{') ||
  (out.match(RET) || []).length !== 4 ||
  identity.includes('__ps.x(__pst),')
)
  throw new Error('the transform emits another form: update this bench');
const own = (code, name) => code.replaceAll(PROBES_KEY, `${PROBES_KEY}.bench.${name}`);
const variants = {
  plain: src,
  off: own(out, 'off'),
  'off/identity': own(identity, 'off-identity'),
  on: own(on(out), 'on'),
};

/** ns per instrumented call for each module in `mods` (runs where the modules are). */
function runBench(mods, rounds, n) {
  const t = {};
  const ks = Object.keys(mods);
  for (const k of ks) t[k] = [];
  for (let r = -3; r < rounds; r++) {
    const order = ks.map((_, i) => ks[(i + r + 3) % ks.length]);
    if (r % 2) order.reverse();
    for (const k of order) {
      const t0 = performance.now();
      mods[k].loop(n);
      const ms = performance.now() - t0;
      if (r >= 0) t[k].push((ms * 1e6) / (n * 5));
    }
  }
  const res = {};
  for (const k of ks) {
    const s = t[k].sort((a, b) => a - b);
    const q = (p) => s[Math.round(p * (s.length - 1))];
    res[k] = [q(0.5), q(0.25), q(0.75)];
  }
  return res;
}

const rows = {};
for (const engine of ENGINES) {
  if (engine === 'node') {
    const mods = {};
    for (const k in variants)
      mods[k] = await import(`data:text/javascript,${encodeURIComponent(variants[k])}`);
    rows[`node ${process.version}`] = runBench(mods, ROUNDS, N);
    continue;
  }
  const { launchEngine, serve } = await import('../test/browser/harness.js');
  const routes = {};
  const names = Object.keys(variants);
  names.forEach((k, i) => {
    routes[`/exits/${i}.js`] = { body: variants[k], type: 'text/javascript' };
  });
  routes['/exits/index.html'] = {
    body: `<!doctype html><script type=module>
const mods = {};
${names.map((k, i) => `mods[${JSON.stringify(k)}] = await import('/exits/${i}.js');`).join('\n')}
window.bench = () => (${runBench.toString()})(mods, ${ROUNDS}, ${N});
window.ready = true;
</script>`,
  };
  const srv = await serve({ routes });
  try {
    const b = await launchEngine(engine);
    try {
      const tab = await b.newPage();
      await tab.goto(`${srv.url}/exits/index.html`);
      await tab.waitFor(() => window.ready === true);
      rows[`${engine} ${b.version}`] = await tab.evaluate(() => window.bench());
    } finally {
      await b.close();
    }
  } finally {
    await srv.close();
  }
}

const cols = Object.keys(variants);
console.log(
  `\n### Entry and exit forms, ns per instrumented call, no profiler's logger (median of ${ROUNDS} rounds, 25–75 %; load average ${loadavg()[0].toFixed(1)})\n`,
);
console.log(`| engine | ${cols.join(' | ')} |\n|---|${cols.map(() => '---').join('|')}|`);
for (const [engine, r] of Object.entries(rows))
  console.log(
    `| ${engine} | ${cols.map((c) => `${r[c][0].toFixed(2)} (${r[c][1].toFixed(2)}–${r[c][2].toFixed(2)})`).join(' | ')} |`,
  );
