// The classic script (dist/perfshim.auto.js) under a Content-Security-Policy: its first-use code
// is text compiled on first use (issue 25), as a Function where the policy allows eval, else as
// an inline script allowed by the script tag's nonce or by the hash on the script's second
// line, through a Trusted Types policy where the page requires one. A policy that allows none
// gets a NotAllowedError that says why at each first use, and nothing else breaks: native User
// Timing works, Measure Memory rejects. Run in Chromium, Firefox and WebKit; the page reads its
// own results (an external script: the policies allow no other inline script than the
// harness's error collector, by its hash).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launchEngine, forEachEngine, ERROR_COLLECTOR, ROOT } from './harness.js';

const sha256 = (text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const COLLECTOR = sha256(/<script>([\s\S]*)<\/script>/.exec(ERROR_COLLECTOR)[1]);
const SCRIPT = readFileSync(join(ROOT, 'dist/perfshim.auto.js'), 'utf8');
const FIRST_USE = /allowed by ('sha256-[^']+')/.exec(SCRIPT.split('\n')[1])[1];
const NONCE = 'perfshim-test-nonce';

// What the page checks once loaded (runs after perfshim.auto.js, before any first use).
const CHECK = `window.violations = [];
addEventListener('securitypolicyviolation', (e) => violations.push(e.blockedURI || e.violatedDirective));
const outcome = (f) => { try { const v = f(); return { ok: v }; } catch (e) { return { error: e.name, message: e.message }; } };
const r = {};
window.result = (async () => {
  r.nativeMark = outcome(() => performance.mark('native').name);
  r.ponyfillMark = outcome(() => perfshim.performance.mark('ponyfill').name);
  r.again = outcome(() => perfshim.performance.now() >= 0);
  r.profiler = await (async () => {
    try {
      const p = new Profiler({ sampleInterval: 10, maxBufferSize: 100 });
      const t = await p.stop();
      return { ok: ['resources', 'frames', 'stacks', 'samples'].every((k) => Array.isArray(t[k])) };
    } catch (e) {
      return { error: e.name, message: e.message };
    }
  })();
  r.exporter = outcome(() => Object.keys(perfshim.toCpuProfile({ resources: [], frames: [], stacks: [], samples: [] })).sort().join());
  const memory = performance.measureUserAgentSpecificMemory;
  // (where it measures: a rejection of the host's, e.g. not cross-origin isolated, is not ours)
  r.memory = typeof memory !== 'function' ? 'none' : await memory.call(performance).then(
    () => 'measured',
    (e) => e.name,
  );
  await new Promise((resolve) => setTimeout(resolve, 50)); // (violation events are queued)
  r.violations = violations;
  r.trustedTypes = typeof trustedTypes !== 'undefined';
  return r;
})().catch((e) => ({ failed: String(e) }));`;

const page = (attrs = '') =>
  `<!doctype html><meta charset=utf-8><title>csp</title><script ${attrs} src="/dist/perfshim.auto.js"></script><script ${attrs} src="/check.js"></script>`;
const BASE = `'wasm-unsafe-eval' ${COLLECTOR}`;
const CASES = {
  // The tag's nonce: compiled as an inline script with it, tried first (no eval refused).
  nonce: { csp: `script-src 'nonce-${NONCE}' ${BASE}`, body: page(`nonce="${NONCE}"`) },
  // The script's hash of its first-use code: the eval is refused, the inline script allowed.
  hash: { csp: `script-src 'self' ${BASE} ${FIRST_USE}`, body: page() },
  // A loader with the nonce adds perfshim's tag without one ('strict-dynamic' trusts it, and
  // the inline script perfshim adds, as every engine does and WPT checks): the eval is refused.
  'strict dynamic': {
    csp: `script-src 'nonce-${NONCE}' 'strict-dynamic' ${BASE}`,
    body: `<!doctype html><meta charset=utf-8><title>csp</title><script nonce="${NONCE}">
for (const src of ['/dist/perfshim.auto.js', '/check.js']) {
  const s = document.createElement('script');
  s.src = src;
  s.async = false;
  document.head.append(s);
}</script>`,
  },
  eval: { csp: `script-src 'self' 'unsafe-eval' ${COLLECTOR}`, body: page() },
  'trusted types': {
    csp: `script-src 'self' 'unsafe-eval' ${COLLECTOR}; require-trusted-types-for 'script'`,
    body: page(),
  },
  refused: { csp: `script-src 'self' ${BASE}`, body: page() },
};

let server;
before(async () => {
  const routes = { '/check.js': { body: CHECK, type: 'text/javascript' } };
  for (const [name, c] of Object.entries(CASES))
    routes[`/${name.replace(' ', '-')}.html`] = {
      body: c.body,
      headers: { 'Content-Security-Policy': c.csp },
    };
  server = await serve({ routes });
});
after(async () => {
  if (server) await server.close();
});

forEachEngine((engine) => {
  let browser;
  before(async () => {
    browser = await launchEngine(engine);
  });
  after(async () => {
    if (browser) await browser.close();
  });
  const open = async (name) => {
    const tab = await browser.newPage();
    await tab.goto(`${server.url}/${name.replace(' ', '-')}.html`);
    const r = await tab.evaluate(() => window.result).catch((e) => ({ evaluate: e.message }));
    const errors = await tab.errors();
    await tab.close();
    return { r, errors };
  };
  const works = (r) => {
    assert.deepEqual(r.nativeMark, { ok: 'native' });
    assert.deepEqual(r.ponyfillMark, { ok: 'ponyfill' });
    assert.deepEqual(r.again, { ok: true });
    assert.deepEqual(r.profiler, { ok: true });
    assert.deepEqual(r.exporter, { ok: 'endTime,nodes,samples,startTime,timeDeltas' });
    assert.notEqual(r.memory, 'NotAllowedError');
  };

  test("a nonce policy: the first-use code runs with the tag's nonce, no eval tried", async () => {
    const { r, errors } = await open('nonce');
    works(r);
    assert.deepEqual(r.violations, []);
    assert.deepEqual(errors, []);
  });

  test("a policy without 'unsafe-eval' that allows the first-use code's hash", async () => {
    const { r } = await open('hash');
    works(r);
    assert.deepEqual(r.violations, ['eval'], 'the one eval refused, once');
  });

  test("'strict-dynamic': perfshim's inline script is trusted as its tag is", async () => {
    const { r } = await open('strict dynamic');
    works(r);
    assert.deepEqual(r.violations, ['eval']);
  });

  test("a policy with 'unsafe-eval': compiled by eval", async () => {
    const { r, errors } = await open('eval');
    works(r);
    assert.deepEqual(r.violations, []);
    assert.deepEqual(errors, []);
  });

  test("Trusted Types required: compiled through perfshim's policy", async () => {
    const { r, errors } = await open('trusted types');
    works(r);
    assert.deepEqual(errors, []);
    assert.deepEqual(r.violations, []);
  });

  test('a policy that allows none: a NotAllowedError at each first use, the rest unharmed', async () => {
    const { r } = await open('refused');
    assert.deepEqual(r.nativeMark, { ok: 'native' });
    for (const k of ['ponyfillMark', 'again', 'profiler', 'exporter']) {
      assert.equal(r[k].error, 'NotAllowedError', k);
      assert.match(r[k].message, /Content-Security-Policy/, k);
    }
    // (perfshim's where the host has none; Chromium's own otherwise)
    if (engine !== 'chromium') assert.equal(r.memory, 'NotAllowedError');
    // (the eval and the inline script refused once each: later uses rethrow)
    assert.deepEqual(r.violations, ['eval', 'inline']);
  });
});
