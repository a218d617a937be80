// Sentry's browser SDK (@sentry/browser, browserProfilingIntegration, 'manual' lifecycle) on a
// page with perfshim.auto.js sends a profile_chunk whose frames name the app's functions at their
// source positions and whose time shares are right (heavy ~2x light), in Chromium without the
// js-profiling policy, Firefox and WebKit, whether the SDK is bundled before the app or starts
// from its own script in <head> before any of the app's code loaded. Its DSN points at a local
// intake.
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
  Object.assign(routes, await rumRoutes('sentry', srv.url, (setup) => `${intake.url}/${setup}`));
});
after(async () => {
  await srv?.close();
  await intake?.close();
});

/** The profile_chunk items of the envelopes posted to /<tag>/api/1/envelope/. */
function chunks(tag) {
  const out = [];
  for (const r of intake.requests) {
    if (r.method !== 'POST' || r.path !== `/${tag}/api/1/envelope/`) continue;
    const lines = r.body.toString('utf8').split('\n');
    for (let i = 1; i + 1 < lines.length; i += 2) {
      if (JSON.parse(lines[i]).type === 'profile_chunk') out.push(JSON.parse(lines[i + 1]));
    }
  }
  return out;
}

/** A Sentry chunk as frames and samples (the names on each sample's stack). */
function asProfile({ profile }) {
  const frames = profile.frames.map((f) => ({
    name: f.function,
    url: f.abs_path,
    line: f.lineno,
    column: f.colno,
  }));
  const samples = profile.samples.map(
    (s) => new Set((profile.stacks[s.stack_id] || []).map((id) => frames[id].name)),
  );
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
    test(`${setup === 'bundled' ? 'SDK bundled before the app' : 'SDK in <head>, app later'}: a profile_chunk with the app's frames and shares`, async (t) => {
      await withShareRetries(async () => {
        const page = await browser.newPage();
        try {
          intake.requests.length = 0; // (one page at a time: what arrives is this page's)
          const { spent } = await runPage(page, `${srv.url}/rum-sentry/${setup}.html`);
          const got = await arrival(() => chunks(setup).length && chunks(setup));
          if (!got) throw new Error(`${tag}: no profile_chunk arrived`);
          const row = checkProfile(asProfile(got.at(-1)), spent, srv.url);
          t.diagnostic(`sentry ${tag}: ${JSON.stringify(row)}`);
        } finally {
          await page.close();
        }
      });
    });
  }
});
