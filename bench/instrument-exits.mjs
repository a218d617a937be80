// Micro-bench of an instrumented function's entry and exit forms (docs/instrument.md, "Bodies
// without try (stop 17)" and "Inline push and pop (stop 19)"): ns per instrumented call, no
// profiler running, of a loop calling `mid`, which calls `leaf` 4 times (5 instrumented calls
// per iteration). Variants, each its own module and probe object, timed in interleaved rounds
// (every variant in every position in turn), medians with the rounds' 25th–75th percentile:
//   plain       the source as it is
//   inline      the transform's output (the push and pop inline, the body in a labelled try, one
//               exit after it)
//   tryless     the same without the try and its catch (measurement only: an exception would
//               leave the frame on the stack)
//   short log   the inline form with stop 19's shorter logging test (`if (__pss[1])
//               __ps.l(__pst)`, no log window): what the bytes of the window cost while no
//               profiler runs (SpiderMonkey inlines only functions of up to 130 bytes of bytecode)
//   calls       the form before stop 19: the push and pop as calls of the probes `e` and `r`
//   calls/no warm-up   the same with probes that skip createProbes's warm-up (the logger call
//               sites shown two functions at creation)
//   calls/empty  the calls form with probes that do nothing (the calls' own cost)
//   no log      the inline form without its two logging tests (what the tests cost)
//   depth only  the same without the frame id's store: only the depth's load and stores, and
//               the try (what the shadow stack's memory traffic costs)
//   no check    the inline form without the top-level declarations' `(__pss || init())` check
//               (every function here is one)
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

const out = instrument(src, { file: 'exits.js' }).code;
const tryless = out
  .replaceAll('__psx:try{', '__psx:{')
  .replaceAll('}catch(__pse){__ps.x(__pst);throw __pse}', '}');
// The inline form's logging test (the log window: glue/instrument/probes.js).
const LOG = /if\(__pss\[1\]&&[^;]*\)__ps\.l\(__pst\);/g;
const shortLog = out.replace(LOG, 'if(__pss[1])__ps.l(__pst);');
const noLog = out.replace(LOG, '');
const depthOnly = noLog.replace(/__pss\[__pst\+258\]=[^;]+;/g, '');
const noCheck = out.replace(/\(__pss\|\|__psh_\w+\(\)\)/g, '__pss');
// The calls form: the inline push and pop as probe calls.
const calls = out
  .replace(
    /let __pst=(?:\(__pss\|\|__psh_\w+\(\)\)|__pss)\[0\],__psv;__pss\[__pst\+258\]=([^;]+);__pss\[0\]=__pst\+1;if\(__pss\[1\]&&[^;]*\)__ps\.l\(__pst\);/g,
    'let __pst=__ps.e($1),__psv;',
  )
  .replace(
    /__pss\[0\]=__pst;if\(__pss\[1\]&&[^;]*\)__ps\.l\(__pst\);return __psv/g,
    'return __ps.r(__psv,__pst)',
  );
// Probes that do nothing, set between the header and the first function.
const empty = (code) =>
  code.replace(
    '\nexport function leaf',
    ';__ps=Object.assign({},__ps,{e(){return 0},r(v){return v},x(){return -1}});\nexport function leaf',
  );
// The probes without the warm-up that shows their logger call sites two functions at creation.
const noWarmUp = (code) => code.replace(/const idle = L;[\s\S]*?S\[1\] = 0;/, '');
if (
  tryless.includes('try{') ||
  shortLog === out ||
  !out.includes('__psx:try{') ||
  calls.includes('__pss[') ||
  empty(calls) === calls ||
  noWarmUp(calls) === calls ||
  noLog.includes('__ps.l(') ||
  depthOnly.includes('+258]=') ||
  noCheck.includes('||__psh_')
)
  throw new Error('the transform emits another form: update this bench');
const own = (code, name) => code.replaceAll(PROBES_KEY, `${PROBES_KEY}.bench.${name}`);
const variants = {
  plain: src,
  inline: own(out, 'inline'),
  tryless: own(tryless, 'tryless'),
  'short log': own(shortLog, 'short-log'),
  calls: own(calls, 'calls'),
  'calls/no warm-up': own(noWarmUp(calls), 'calls-no-warm-up'),
  'calls/empty': own(empty(calls), 'calls-empty'),
  'no log': own(noLog, 'no-log'),
  'depth only': own(depthOnly, 'depth-only'),
  'no check': own(noCheck, 'no-check'),
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
  `\n### Entry and exit forms, ns per instrumented call, no profiler (median of ${ROUNDS} rounds, 25–75 %; load average ${loadavg()[0].toFixed(1)})\n`,
);
console.log(`| engine | ${cols.join(' | ')} |\n|---|${cols.map(() => '---').join('|')}|`);
for (const [engine, r] of Object.entries(rows))
  console.log(
    `| ${engine} | ${cols.map((c) => `${r[c][0].toFixed(2)} (${r[c][1].toFixed(2)}–${r[c][2].toFixed(2)})`).join(' | ')} |`,
  );
