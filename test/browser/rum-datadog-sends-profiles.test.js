// Datadog's browser RUM SDK (@datadog/browser-rum, profilingSampleRate 100, its profiler loaded as
// it loads it) on a page with perfshim.auto.js sends a profile (its wall-time.json) whose frames
// name the app's functions at their source positions and whose time shares are right (heavy ~2x
// light), in Chromium without the js-profiling policy, Firefox and WebKit, whether the SDK is
// bundled before the app or starts from its own script in <head> before any of the app's code
// loaded. Its `proxy` option points at a local intake.
import { test, before, after } from 'node:test';
import { serve, launchEngine, forEachEngine } from './harness.js';
import {
  arrival,
  checkProfile,
  withShareRetries,
  rumRoutes,
  runPage,
  startIntake,
} from './rum-sdk.js';

let srv, intake;
before(async () => {
  intake = await startIntake();
  const routes = {};
  srv = await serve({ routes });
  Object.assign(routes, await rumRoutes('datadog', srv.url, (setup) => `${intake.url}/${setup}`));
});
after(async () => {
  await srv?.close();
  await intake?.close();
});

/** The wall-time.json traces of the profiles posted through the proxy at /<tag>/dd. */
async function profiles(tag) {
  const out = [];
  for (const r of intake.requests) {
    const forward = r.query.get('ddforward') || '';
    if (r.method !== 'POST' || r.path !== `/${tag}/dd` || !forward.startsWith('/api/v2/profile?'))
      continue;
    const form = await new Request('http://intake/', {
      method: 'POST',
      headers: { 'content-type': r.headers['content-type'] },
      body: r.body,
    }).formData();
    out.push(JSON.parse(await form.get('wall-time.json').text()));
  }
  return out;
}

/** A Datadog trace (the spec's ProfilerTrace and its context) as frames and samples (the names on
 *  each sample's stack). */
function asProfile(trace) {
  const frames = trace.frames.map((f) => ({
    name: f.name,
    url: trace.resources[f.resourceId],
    line: f.line,
    column: f.column,
  }));
  const samples = trace.samples.map((s) => {
    const names = new Set();
    for (let id = s.stackId; id !== undefined; id = trace.stacks[id].parentId)
      names.add(frames[trace.stacks[id].frameId].name);
    return names;
  });
  return { frames, samples };
}

forEachEngine((engine) => {
  let browser;
  before(async () => {
    browser = await launchEngine(engine);
  });
  after(async () => {
    await browser?.close();
  });

  for (const setup of ['bundled', 'head']) {
    const tag = `${engine}-${setup}`;
    test(`${setup === 'bundled' ? 'SDK bundled before the app' : 'SDK in <head>, app later'}: a profile with the app's frames and shares`, async (t) => {
      await withShareRetries(async () => {
        const page = await browser.newPage();
        try {
          intake.requests.length = 0; // (one page at a time: what arrives is this page's)
          // The SDK drops a profile shorter than 5 s without a long task (Firefox and WebKit have
          // no longtask entries): the page waits that long after the app's end (its profiler,
          // which has the app's frames, started before it; bundled, its start waited for the
          // app's first tasks: ~4.6 s of samples by 6 s of page time in Firefox).
          const { spent } = await runPage(page, `${srv.url}/rum-datadog/${setup}.html`, {
            afterMs: 5500,
          });
          const got = await arrival(async () => {
            const p = await profiles(setup);
            return p.length && p;
          });
          if (!got) throw new Error(`${tag}: no profile arrived`);
          const row = checkProfile(asProfile(got.at(-1)), spent, srv.url);
          t.diagnostic(`datadog ${tag}: ${JSON.stringify(row)}`);
        } finally {
          await page.close();
        }
      });
    });
  }
});
