// Shared by the RUM SDK suites (rum-sentry-*, rum-datadog-*; not a suite itself): a local intake
// that keeps what the SDKs upload, the app and the SDKs built with esbuild (the app's own code
// through perfshim's esbuild plugin, the SDKs from node_modules as they are), the two page
// setups, and the checks on a received profile (frames at their source positions in work.js,
// heavy's share about twice light's).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildPlugin } from '../../glue/instrument/index.js';
import { positionOf } from '../node/profiler-helpers.mjs';
import { ROOT } from './harness.js';

const DIR = join(ROOT, 'test/browser/fixtures/rum');
export const WORK = join(DIR, 'work.js');

/** An intake on 127.0.0.1 that keeps every request ({method, path, query, headers, body}) and
 *  answers 200 with CORS open (the pages are on another port); Datadog's quota check is
 *  admitted. */
export async function startIntake() {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      requests.push({
        method: req.method,
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      const cors = {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
      };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors);
        res.end();
        return;
      }
      res.writeHead(200, { ...cors, 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { attributes: { admitted: true, reason: 'ok' } } }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** `entry` (a file of fixtures/rum) bundled as a classic script; with `instrument`, the app's
 *  own modules (not node_modules) through perfshim's plugin, their frames under `base` + the
 *  path served at. Minified, as a production build is. */
export async function bundle(entry, { instrument, base }) {
  const r = await build({
    entryPoints: [join(DIR, entry)],
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    logLevel: 'silent',
    plugins: instrument
      ? [
          esbuildPlugin({
            url: (path) => `${base}/test/browser/fixtures/rum/${path.slice(DIR.length + 1)}`,
          }),
        ]
      : [],
  });
  return { body: r.outputFiles[0].text, type: 'text/javascript' };
}

/** The two setups' pages for an SDK (`sdk`: 'sentry' | 'datadog') and their scripts, as routes
 *  under /rum-<sdk>/; `intake(setup)` is where the SDK uploads from that page.
 *   bundled: perfshim.auto.js, then one bundle of the SDK's set-up then the app (the SDK
 *     starts first as the bundle runs);
 *   head: perfshim.auto.js and the SDK in <head> (its own script, nothing instrumented in it),
 *     the app's script added after the page's load (its frames register after the SDK's
 *     profiler started). */
export async function rumRoutes(sdk, base, intake) {
  const dir = `/rum-${sdk}`;
  const config = (setup) => `<script>window.rumIntake = ${JSON.stringify(intake(setup))};</script>`;
  const auto = '<script src="/dist/perfshim.auto.js"></script>';
  return {
    [`${dir}/bundled.js`]: await bundle(`${sdk}-bundled.js`, { instrument: true, base }),
    [`${dir}/sdk.js`]: await bundle(`${sdk}-sdk.js`, { instrument: false, base }),
    [`${dir}/app.js`]: await bundle('app.js', { instrument: true, base }),
    [`${dir}/bundled.html`]: {
      body: `<!doctype html><meta charset=utf-8><title>${sdk}: bundled</title>${config('bundled')}${auto}<script src="${dir}/bundled.js"></script>`,
    },
    [`${dir}/head.html`]: {
      body:
        `<!doctype html><html><head><meta charset=utf-8><title>${sdk}: in head</title>${config('head')}${auto}` +
        `<script src="${dir}/sdk.js"></script></head><body><script>addEventListener('load', () => setTimeout(() => {` +
        `const s = document.createElement('script'); s.src = '${dir}/app.js'; document.body.append(s); }, 300));</script></body></html>`,
    },
  };
}

/** Open a setup's page, let the app run, then end the SDK's profile (`afterMs`: page time to
 *  wait after the app's end first). Resolves to the app's result ({spent, n, at}). */
export async function runPage(page, url, { afterMs = 0 } = {}) {
  await page.goto(url);
  const done = await page.waitFor(() => window.appDone, undefined, { timeout: 90000 });
  if (afterMs)
    await page.waitFor((t) => performance.now() > t, done.at + afterMs, {
      timeout: afterMs + 30000,
      interval: 200,
    });
  await page.evaluate(() => window.rum.stop());
  return done;
}

/** Poll until `find()` returns something (the SDK's upload arrived). */
export async function arrival(find, timeout = 30000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await find();
    if (v) return v;
    if (Date.now() > end) return null;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The position of function `name` in work.js as engines give it: the ( of its parameters. */
export function workPosition(name) {
  const p = positionOf(WORK, `function ${name}(`);
  return { line: p.line, column: p.column + `function ${name}`.length };
}

/** Checks a profile given as frames [{name, url, line, column}] and samples (each a set of the
 *  names on its stack), against the app's measured times: heavy, light and burn at their
 *  positions in work.js (served from `base`), the work's time covered by samples, and heavy's
 *  share of the samples to light's within 1.5-2.5 for the work's 2 (taken against the time
 *  each really took: a busy machine or a JIT's tiers stretch some calls). Returns a row for the
 *  suite's table. */
export function checkProfile({ frames, samples }, spent, base) {
  const url = `${base}/test/browser/fixtures/rum/work.js`;
  for (const name of ['heavy', 'light', 'burn']) {
    const f = frames.find((x) => x.name === name);
    assert.ok(f, `a frame named ${name}: ${JSON.stringify(frames.map((x) => x.name))}`);
    assert.deepEqual(
      { url: f.url, line: f.line, column: f.column },
      { url, ...workPosition(name) },
      name,
    );
  }
  const heavy = samples.filter((s) => s.has('heavy')).length;
  const light = samples.filter((s) => s.has('light')).length;
  assert.ok(light >= 20, `light in ${light} of ${samples.length} samples`);
  // The profile covers the work: about one sample per 10 ms of it (both SDKs' interval).
  const covered = ((heavy + light) * 10) / (spent.heavy + spent.light);
  const ratio = (2 * (heavy / light)) / (spent.heavy / spent.light);
  const row = {
    samples: samples.length,
    heavy,
    light,
    measured: +(spent.heavy / spent.light).toFixed(2),
    ratio: +ratio.toFixed(2),
    covered: +covered.toFixed(2),
  };
  assert.ok(covered >= 0.7 && covered <= 1.3, `coverage ${JSON.stringify(row)}`);
  assert.ok(ratio >= 1.5 && ratio <= 2.5, `heavy:light ${JSON.stringify(row)}`);
  return row;
}

/** Runs `visit()` (a page through the SDK, checked by checkProfile) up to three times while
 *  only the heavy:light share is off: the share is a count of ~10 ms samples (a few hundred),
 *  which a starved machine or a JIT tier landing in one function can push out of the band once.
 *  The frames, their positions and the coverage must hold on every visit, and a bias that
 *  persists fails all three. */
export async function withShareRetries(visit) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await visit();
    } catch (e) {
      if (
        attempt === 3 ||
        !(e instanceof assert.AssertionError) ||
        !/^heavy:light /.test(e.message)
      )
        throw e;
    }
  }
}
