// Differential Test262 runner for the instrumentation transform: runs each test plain and
// instrumented (glue/instrument/transform.js), with no profiler and with the probes' switch on
// (getProbes().use(1) in the test's realm, with a logger so the log records are written too),
// and lists the tests that pass plain and fail instrumented. Test262 itself is not ours to
// commit: check it out anywhere (e.g. `git archive` of tc39/test262) and point this at it.
//   node --experimental-vm-modules tools/test262-instrumented.mjs <test262 dir> [dirs…]
//     [--transform=path/to/transform.js] [--json=out.json] [--filter=substring]
// dirs default to test/language test/annexB/language test/built-ins/Function (relative to the
// test262 dir). Each test runs in a fresh vm context per mode; flags onlyStrict/noStrict/raw/
// module/async, harness includes and negative tests are honoured (tests with no strictness flag
// run in both modes). Exit code 1 when any test differs.
import vm from 'node:vm';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name) => (args.find((a) => a.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const positional = args.filter((a) => !a.startsWith('--'));
const ROOT = resolve(positional[0] || '/tmp/test262');
const DIRS =
  positional.length > 1
    ? positional.slice(1)
    : ['test/language', 'test/annexB/language', 'test/built-ins/Function'];
const TRANSFORM = resolve(
  opt('transform') || new URL('../glue/instrument/transform.js', import.meta.url).pathname,
);
const { instrument, PROBES_TEXT } = await import(pathToFileURL(TRANSFORM).href);
const { PROBES_KEY } = await import(pathToFileURL(join(dirname(TRANSFORM), 'probes.js')).href);
const FILTER = opt('filter');
// A test's own promise rejected after the test ended (e.g. async-function/evaluation-body.js's
// `await new Promise()`) is no failure of either run, plain or instrumented: ignore it instead
// of letting Node end the whole run.
process.on('unhandledRejection', () => {});
const TIMEOUT = 5000;

function walk(dir, out) {
  if (!statSync(dir).isDirectory()) {
    out.push(dir); // a test named on its own
    return out;
  }
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.js') && !name.includes('_FIXTURE')) out.push(p);
  }
  return out;
}

function meta(src) {
  const m = /\/\*---([\s\S]*?)---\*\//.exec(src);
  const y = m ? m[1] : '';
  const list = (key) => {
    const inline = new RegExp(`^${key}:\\s*\\[([^\\]]*)\\]`, 'm').exec(y);
    if (inline)
      return inline[1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    const block = new RegExp(`^${key}:\\s*\\n((?:\\s+-.*\\n?)*)`, 'm').exec(y);
    return block
      ? block[1]
          .split('\n')
          .map((s) => s.replace(/^\s*-\s*/, '').trim())
          .filter(Boolean)
      : [];
  };
  const neg =
    /^negative:\s*\n\s+phase:\s*(\w+)\s*\n\s+type:\s*(\w+)/m.exec(y) ||
    /^negative:\s*\n\s+type:\s*(\w+)\s*\n\s+phase:\s*(\w+)/m.exec(y);
  let negative = null;
  if (neg)
    negative = /phase:\s*\w+\s*\n\s+type/.test(neg[0])
      ? { phase: neg[1], type: neg[2] }
      : { phase: neg[2], type: neg[1] };
  return { flags: list('flags'), includes: list('includes'), features: list('features'), negative };
}

const harnessCache = new Map();
function harness(name) {
  if (!harnessCache.has(name))
    harnessCache.set(name, readFileSync(join(ROOT, 'harness', name), 'utf8'));
  return harnessCache.get(name);
}
const instrumentedCache = new Map();
function instrumentCached(code, file, sourceType) {
  const key = `${sourceType}\0${file}\0${code}`;
  if (!instrumentedCache.has(key)) {
    let v;
    try {
      // (every function: the transform's handling of each kind is what is tested)
      v = { code: instrument(code, { file, sourceType, everyFunction: true }).code };
    } catch (e) {
      v = { error: e };
    }
    if (instrumentedCache.size > 200) instrumentedCache.clear();
    instrumentedCache.set(key, v);
  }
  return instrumentedCache.get(key);
}

// One run of a test: resolves to null (pass) or a failure message.
async function runOnce(test, src, m, strict, mode) {
  const instrumented = mode !== 'plain';
  let doneMsg = null;
  let resolveDone;
  const done = new Promise((r) => {
    resolveDone = r;
  });
  const modules = new Map();
  const makeRealm = () => {
    const ctx = vm.createContext({});
    const g = vm.runInContext('globalThis', ctx);
    g.print = (msg) => {
      if (doneMsg === null && typeof msg === 'string' && msg.startsWith('Test262:Async')) {
        doneMsg = msg;
        resolveDone();
      }
    };
    const $262 = {
      global: g,
      gc() {},
      evalScript(code) {
        return runScript(ctx, String(code), 'evalScript.js');
      },
      createRealm() {
        return makeRealm().$262;
      },
      detachArrayBuffer(ab) {
        if (typeof ab.transfer === 'function') ab.transfer();
        else structuredClone(ab, { transfer: [ab] });
      },
      agent: {},
    };
    g.$262 = $262;
    if (mode === 'on') {
      vm.runInContext(
        `{const p=globalThis[Symbol.for(${JSON.stringify(PROBES_KEY)})]=(${PROBES_TEXT})();` +
          'p.use(1);var W=new Int32Array(256);p.log(function(){p.w(W,1,256,0)});p.w(W,1,256,0);}',
        ctx,
      );
    }
    return { ctx, $262 };
  };
  const importDyn = (ctx) => async (spec, referrer) => {
    const base = referrer?.identifier || test;
    const mod = await loadModule(ctx, resolve(dirname(base), spec));
    await mod.link(linker(ctx));
    await mod.evaluate();
    return mod;
  };
  const runScript = (ctx, code, file) => {
    let text = code;
    if (instrumented) {
      const r = instrumentCached(code, file, 'script');
      if (r.error) {
        if (r.error instanceof SyntaxError)
          throw new (vm.runInContext('SyntaxError', ctx))(`[instrument] ${r.error.message}`);
        throw r.error;
      }
      text = r.code;
    }
    return new vm.Script(text, {
      filename: file,
      importModuleDynamically: importDyn(ctx),
    }).runInContext(ctx, { timeout: TIMEOUT });
  };
  const loadModule = async (ctx, path) => {
    if (modules.has(path)) return modules.get(path);
    let code = readFileSync(path, 'utf8');
    if (instrumented) {
      const r = instrumentCached(code, path, 'module');
      if (r.error)
        throw new (vm.runInContext('SyntaxError', ctx))(`[instrument] ${r.error.message}`);
      code = r.code;
    }
    const mod = new vm.SourceTextModule(code, {
      context: ctx,
      identifier: path,
      importModuleDynamically: importDyn(ctx),
      initializeImportMeta(meta) {
        meta.url = pathToFileURL(path).href;
      },
    });
    modules.set(path, mod);
    return mod;
  };
  const linker = (ctx) => (spec, ref) => loadModule(ctx, resolve(dirname(ref.identifier), spec));

  const { ctx } = makeRealm();
  const includes = m.flags.includes('raw')
    ? []
    : [
        'assert.js',
        'sta.js',
        ...(m.flags.includes('async') ? ['doneprintHandle.js'] : []),
        ...m.includes,
      ];
  let error = null;
  try {
    for (const inc of includes) runScript(ctx, harness(inc), inc);
    if (m.flags.includes('module')) {
      const mod = await loadModule(ctx, test);
      await mod.link(linker(ctx));
      await mod.evaluate({ timeout: TIMEOUT });
    } else {
      runScript(ctx, strict ? `"use strict";\n${src}` : src, test);
    }
  } catch (e) {
    error = e;
  }
  if (!error && m.flags.includes('async')) {
    let timer;
    await Promise.race([
      done,
      new Promise((r) => {
        timer = setTimeout(r, TIMEOUT);
      }),
    ]);
    clearTimeout(timer);
    if (doneMsg === null) return 'async test did not complete';
    if (doneMsg !== 'Test262:AsyncTestComplete') return doneMsg;
  } else {
    // settle pending jobs (a module's top-level await, promise rejections)
    await new Promise((r) => setImmediate(r));
  }
  const name = (e) => {
    try {
      return e?.constructor?.name ?? typeof e;
    } catch {
      return 'unknown';
    }
  };
  const message = (e) => {
    try {
      return `${name(e)}: ${e?.message ?? String(e)}`;
    } catch {
      return name(e);
    }
  };
  if (m.negative) {
    if (!error) return `expected ${m.negative.type} (${m.negative.phase}), got none`;
    return name(error) === m.negative.type
      ? null
      : `expected ${m.negative.type}, got ${message(error)}`;
  }
  return error ? message(error) : null;
}

const files = [];
for (const d of DIRS) walk(join(ROOT, d), files);
const totals = { files: 0, runs: 0, passPlain: 0, passNoProfiler: 0, passOn: 0, differences: 0 };
const differences = [];
const started = Date.now();
for (const test of files) {
  const rel = relative(ROOT, test);
  if (FILTER && !rel.includes(FILTER)) continue;
  const src = readFileSync(test, 'utf8');
  const m = meta(src);
  totals.files++;
  const modes =
    m.flags.includes('module') || m.flags.includes('raw')
      ? [false]
      : m.flags.includes('onlyStrict')
        ? [true]
        : m.flags.includes('noStrict')
          ? [false]
          : [false, true];
  for (const strict of modes) {
    totals.runs++;
    const plain = await runOnce(test, src, m, strict, 'plain');
    if (plain !== null) continue;
    totals.passPlain++;
    const off = await runOnce(test, src, m, strict, 'off');
    const on = await runOnce(test, src, m, strict, 'on');
    if (off === null) totals.passNoProfiler++;
    if (on === null) totals.passOn++;
    if (off !== null || on !== null) {
      totals.differences++;
      differences.push({ test: rel, strict, off, on });
      console.log(
        `DIFF ${rel}${strict ? ' (strict)' : ''}\n  no profiler: ${off}\n  profiler on: ${on}`,
      );
    }
  }
  if (totals.files % 1000 === 0)
    console.error(
      `${totals.files}/${files.length} files, ${totals.differences} differences, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
}
console.log(JSON.stringify(totals));
if (opt('json')) writeFileSync(opt('json'), JSON.stringify({ totals, differences }, null, 1));
process.exitCode = totals.differences ? 1 : 0;
