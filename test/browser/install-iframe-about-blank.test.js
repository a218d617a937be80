// Installed in an iframe's initial about:blank document, then the iframe loads its page in the
// same global (issue 8 item 6): Firefox and WebKit give the page a new `performance` object,
// Chromium keeps the old one. Every genuine Performance object of the realm is accepted (a
// brand check, not identity), and the page's marks are on the page's clock; a non-Performance
// receiver is still an Illegal invocation. Run in Chromium, Firefox and WebKit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launchEngine, forEachEngine } from './harness.js';

// The parent installs the classic build synchronously into the iframe's initial about:blank
// document (the iframe already has its src, so the next document reuses that global), then
// reads what the iframe's page saw.
const PARENT = `<!doctype html><meta charset=utf-8><title>parent</title><body><script>
window.run = async () => {
  const code = await (await fetch('/dist/perfshim.auto.js')).text();
  return new Promise((resolve) => {
    const f = document.createElement('iframe');
    f.src = '/iframe-page.html';
    document.body.append(f);
    const w = f.contentWindow;
    w.PERFSHIM = { force: true };
    new w.Function(code)();
    const blank = { perf: w.performance, mark: w.performance.mark('in-about-blank').name, installed: !!w.perfshim };
    w.__sameGlobal = true;
    f.onload = () => {
      const page = f.contentWindow;
      resolve({
        blank: blank.mark,
        installed: blank.installed,
        sameGlobal: page.__sameGlobal === true,
        newPerformance: page.performance !== blank.perf,
        page: page.result,
        oldStillAccepted: (() => { try { return page.Performance.prototype.getEntriesByType.call(blank.perf, 'mark').length >= 0; } catch (e) { return String(e); } })(),
      });
    };
  });
};
</script>`;

const PAGE = `<!doctype html><meta charset=utf-8><script>
const err = (f) => { try { f(); return 'no exception'; } catch (e) { return { ctor: e.constructor.name, message: e.message }; } };
try {
  const now0 = performance.now();
  const m = performance.mark('in-page');
  const ms = performance.measure('page-measure', { start: 0, end: 1 });
  const nav = performance.getEntriesByType('navigation');
  window.result = {
    mark: [m.name, m.startTime >= now0, m.startTime - performance.now() <= 0, performance.now() - m.startTime < 1000],
    measure: [ms.startTime, ms.duration],
    byName: performance.getEntriesByName('in-page').length,
    nav: nav.map((e) => new URL(e.name).pathname),
    memory: (() => { try { const p = performance.measureUserAgentSpecificMemory(); p.catch(() => {}); return typeof p.then; } catch (e) { return String(e); } })(),
    plainObject: err(() => Performance.prototype.mark.call({}, 'x')),
    protoObject: err(() => Performance.prototype.mark.call(Object.create(Performance.prototype), 'x')),
  };
} catch (e) {
  window.result = { error: String(e) };
}
</script>`;

let server;
before(async () => {
  server = await serve({
    routes: { '/parent.html': { body: PARENT }, '/iframe-page.html': { body: PAGE } },
  });
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

  test('the page that replaces about:blank calls the installed methods on its own performance', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/parent.html`);
      const r = await page.evaluate(() => window.run());
      assert.equal(r.installed, true);
      assert.equal(r.blank, 'in-about-blank');
      assert.equal(
        r.sameGlobal,
        true,
        'the page reuses the about:blank global (so the install is still there)',
      );
      if (engine !== 'chromium')
        assert.equal(r.newPerformance, true, `${engine} gives the page a new performance object`);
      assert.equal(r.page.error, undefined, r.page.error);
      assert.deepEqual(
        r.page.mark,
        ['in-page', true, true, true],
        "the mark is on the page's clock",
      );
      assert.deepEqual(r.page.measure, [0, 1]);
      assert.equal(r.page.byName, 1);
      assert.deepEqual(r.page.nav, ['/iframe-page.html'], "the host's entries are the page's");
      assert.equal(
        r.page.memory,
        'function',
        'measureUserAgentSpecificMemory accepts the new object',
      );
      const illegal = {
        ctor: 'TypeError',
        message: "Failed to execute 'mark' on 'Performance': Illegal invocation",
      };
      assert.deepEqual(r.page.plainObject, illegal);
      assert.deepEqual(
        r.page.protoObject,
        illegal,
        'an object that only inherits from Performance.prototype is not a Performance',
      );
      assert.equal(
        r.oldStillAccepted,
        true,
        "the about:blank document's performance is a genuine Performance too",
      );
      assert.deepEqual(await page.errors(), []);
    } finally {
      await page.close();
    }
  });
});
