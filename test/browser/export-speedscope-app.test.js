// toSpeedscope opened in speedscope's own app (npm speedscope ships the built app) in Chromium,
// read from its Sandwich table: anonymous functions are named as speedscope's own .cpuprofile
// import names them ("(anonymous app.js:5)", no blank rows), a gc sample sits on top of the
// stack that was running, and the table equals the app's import of our toCpuProfile export.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, extname } from 'node:path';
import { serve, launch, ROOT } from './harness.js';
import { createExporters } from '../../glue/export/export.js';
import { createCore } from '../../glue/host/loader.js';

const { toSpeedscope, toCpuProfile } = createExporters(createCore());

// main > (anonymous, line 5) > work: 10 ms in work, then 5 ms of gc samples (no stack) while
// work was running, then 5 ms in the anonymous function; 1 ms per sample.
const TRACE = {
  resources: ['https://a.test/js/app.js'],
  frames: [
    { name: 'main', resourceId: 0, line: 1, column: 1 },
    { name: '', resourceId: 0, line: 5, column: 3 },
    { name: 'work', resourceId: 0, line: 9, column: 1 },
    { name: '', line: 2, column: 1 },
  ],
  stacks: [
    { frameId: 0 },
    { frameId: 1, parentId: 0 },
    { frameId: 2, parentId: 1 },
    { frameId: 3, parentId: 0 },
  ],
  samples: [],
};
let at = 10;
const add = (n, s) => {
  for (let i = 0; i < n; i++) TRACE.samples.push({ timestamp: at++, ...s });
};
add(10, { stackId: 2 });
add(5, { marker: 'gc' });
add(5, { stackId: 1 });
add(3, { stackId: 3 });
add(1, { stackId: 0 });

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};
let srv, browser;
before(async () => {
  const app = join(ROOT, 'node_modules/speedscope/dist/release');
  const routes = {};
  for (const f of readdirSync(app)) {
    routes[`/speedscope/${f}`] = {
      body: readFileSync(join(app, f)),
      type: TYPES[extname(f)] || 'application/octet-stream',
    };
  }
  routes['/profiles/ours.speedscope.json'] = {
    body: JSON.stringify(toSpeedscope(TRACE, { name: 'ours' })),
    type: TYPES['.json'],
  };
  routes['/profiles/ours.cpuprofile'] = {
    body: JSON.stringify(toCpuProfile(TRACE)),
    type: TYPES['.json'],
  };
  srv = await serve({ routes });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

/** Open a profile in the app and read its Sandwich table: {name: [total, self]} (ms). */
async function sandwich(file) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(
      `${srv.url}/speedscope/index.html#profileURL=${encodeURIComponent(`${srv.url}/profiles/${file}`)}`,
    );
    await page.getByText('Sandwich').click({ timeout: 60000 });
    await page.waitForFunction(() => document.querySelectorAll('tr td').length > 0, null, {
      timeout: 60000,
    });
    const rows = await page.evaluate(() =>
      [...document.querySelectorAll('tr')]
        .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))
        .filter((cells) => cells.length === 3),
    );
    assert.deepEqual(errors, []);
    const ms = (text) => {
      const m = /^([\d.]+)(ms|ns|µs|us|s)\b/.exec(text);
      assert.ok(m, `a time: ${text}`);
      return Number(m[1]) * { ms: 1, ns: 1e-6, µs: 1e-3, us: 1e-3, s: 1000 }[m[2]];
    };
    return Object.fromEntries(rows.map(([total, self, name]) => [name, [ms(total), ms(self)]]));
  } finally {
    await page.close();
  }
}

test('speedscope shows our anonymous functions with its own names, no blank rows', async () => {
  const rows = await sandwich('ours.speedscope.json');
  assert.deepEqual(
    Object.keys(rows).sort(),
    ['(anonymous app.js:5)', '(anonymous)', '(garbage collector)', 'main', 'work'].sort(),
  );
});

test('a gc sample sits on top of the stack that was running (work), not at the root', async () => {
  const rows = await sandwich('ours.speedscope.json');
  assert.deepEqual(rows['(garbage collector)'], [5, 5]);
  assert.deepEqual(rows.work, [15, 10], 'work: its 10 ms plus the 5 ms of gc on top of it');
  assert.equal(rows['(anonymous app.js:5)'][0], 20, 'the anonymous caller includes both');
  assert.equal(rows.main[0], 24, 'main is under every sample: 100%');
});

test("our speedscope file renders as the app's own import of our .cpuprofile", async () => {
  const ours = await sandwich('ours.speedscope.json');
  const imported = await sandwich('ours.cpuprofile');
  assert.deepEqual(Object.keys(ours).sort(), Object.keys(imported).sort());
  for (const [name, [total, self]] of Object.entries(ours)) {
    // The import weighs samples by the time to the next one; we give the last the mean interval.
    assert.ok(
      Math.abs(imported[name][0] - total) <= 1 + 1e-9,
      `${name} total ${total} vs ${imported[name][0]}`,
    );
    assert.ok(
      Math.abs(imported[name][1] - self) <= 1 + 1e-9,
      `${name} self ${self} vs ${imported[name][1]}`,
    );
  }
});
