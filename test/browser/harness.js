// Shared harness for the browser suites: a static server for the repository on 127.0.0.1
// (per-path response headers, e.g. Document-Policy or COOP/COEP; generated routes) and the three
// engines behind one small page API: Debian's Chromium (playwright-core), Firefox ESR
// (puppeteer-core over WebDriver BiDi) and WebKitGTK's MiniBrowser (WebKitWebDriver under Xvfb,
// selenium-webdriver). Nothing is downloaded. A missing browser fails the suite with what to
// install; nothing is skipped silently.
//
// Page API (the same for every engine): goto(url), evaluate(fn, arg), waitFor(fn, arg, opts),
// click(selector), errors(), screenshot(path, { fullPage }), close(). `evaluate` runs `fn(arg)`
// in the page and resolves to its JSON-like result (awaited if it is a promise).
// WebKit's driver reports no console or page errors, so every generated HTML route gets a small
// collector script (ERROR_COLLECTOR) and errors() reads what it gathered, in every engine.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { serve as serveStatic, ROOT } from '../../tools/static-server.mjs';

export { ROOT };

export const ENGINES = ['chromium', 'firefox', 'webkit'];

const PATHS = {
  chromium: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  firefox: process.env.FIREFOX_PATH || '/usr/bin/firefox-esr',
  webkit: process.env.MINIBROWSER_PATH || miniBrowser(),
};

/** WebKitGTK's MiniBrowser, under the machine's multiarch library directory. */
function miniBrowser() {
  const fallback = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
  try {
    for (const d of readdirSync('/usr/lib')) {
      const p = `/usr/lib/${d}/webkit2gtk-4.1/MiniBrowser`;
      if (d.endsWith('-linux-gnu') && existsSync(p)) return p;
    }
  } catch {
    /* no /usr/lib: reported as missing */
  }
  return fallback;
}
const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
const XVFB = '/usr/bin/Xvfb';

/** Uncaught errors and unhandled rejections, collected in the page (a listener that prevents
 *  the default, as a page handling its own errors does, keeps the error out). */
export const ERROR_COLLECTOR =
  '<script>(() => { const errors = window.__harnessErrors = [];' +
  "addEventListener('error', (e) => setTimeout(() => { if (!e.defaultPrevented) errors.push(String(e.error && e.error.stack || e.message)); }));" +
  "addEventListener('unhandledrejection', (e) => setTimeout(() => { if (!e.defaultPrevented) errors.push('unhandled rejection: ' + String(e.reason && e.reason.stack || e.reason)); }));" +
  '})();</script>';

/** `html` with the error collector as its first script (after the doctype, so the page keeps
 *  its standards mode). */
export function withCollector(html) {
  const m = /^\s*<!doctype html>/i.exec(html);
  return m ? m[0] + ERROR_COLLECTOR + html.slice(m[0].length) : ERROR_COLLECTOR + html;
}

/** A route serving the repository file `path` (relative to ROOT) with the error collector. */
export function fileRoute(path, extra = {}) {
  return { body: withCollector(readFileSync(`${ROOT}${path}`, 'utf8')), ...extra };
}

/** Serve the repository on 127.0.0.1. `headers(path)` returns extra headers for a path;
 *  `routes` maps a path to {body, type, headers} for generated pages; HTML routes get the
 *  error collector. */
export function serve({ routes = {}, ...options } = {}) {
  // Read at request time, not copied: a suite may add routes once it knows the server's URL.
  const wrapped = new Proxy(routes, {
    get(target, path) {
      const route = target[path];
      if (!route || typeof path !== 'string') return route;
      const html = !route.type || route.type.startsWith('text/html');
      return html && typeof route.body === 'string' && !route.body.includes(ERROR_COLLECTOR)
        ? { ...route, body: withCollector(route.body) }
        : route;
    },
  });
  return serveStatic({ ...options, routes: wrapped });
}

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function missing(engine) {
  const need = { chromium: 'chromium', firefox: 'firefox-esr', webkit: 'webkit2gtk-driver xvfb' }[
    engine
  ];
  return new Error(
    `${engine}: ${PATHS[engine]} is missing; install it with \`bash tools/install-deps.sh\` ` +
      `(as root) or \`apt-get install ${need}\``,
  );
}

/** Launch Debian's Chromium with playwright-core (the Chromium-only suites use it directly).
 *  `args` are extra command-line switches. */
export async function launch(args = []) {
  if (!existsSync(PATHS.chromium)) throw missing('chromium');
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: PATHS.chromium,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...args],
  });
}

/** Open `url` in a fresh playwright page; page errors are collected. */
export async function openPage(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A browser that stops answering fails the call (and its suite), never hangs the run.
const CALL_TIMEOUT = 120000;
const SUITE_TIMEOUT = 10 * 60000;
function within(engine, what, promise, ms = CALL_TIMEOUT) {
  let timer;
  const expire = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${engine}: ${what} did not finish in ${ms / 1000} s`)),
      ms,
    );
  });
  return Promise.race([promise, expire]).finally(() => clearTimeout(timer));
}

/** The page API over a driver-specific `impl` ({goto, run(fn, arg), shot(fullPage), close,
 *  driverErrors}). */
function pageApi(engine, impl) {
  const api = {
    engine,
    goto: (url) => within(engine, `goto ${url}`, impl.goto(url)),
    evaluate: (fn, arg) => within(engine, 'evaluate', impl.run(fn, arg)),
    /** Poll `fn(arg)` in the page until it is truthy; resolves to that value. */
    async waitFor(fn, arg, { timeout = 20000, interval = 50 } = {}) {
      const end = Date.now() + timeout;
      for (;;) {
        const v = await within(engine, 'evaluate', impl.run(fn, arg));
        if (v) return v;
        if (Date.now() > end)
          throw new Error(
            `${engine}: timed out after ${timeout} ms waiting for ${String(fn).slice(0, 120)}`,
          );
        await sleep(interval);
      }
    },
    click: (selector) =>
      within(
        engine,
        `click ${selector}`,
        impl.run((s) => {
          document.querySelector(s).click();
        }, selector),
      ),
    /** Errors so far: the driver's page errors (Chromium, Firefox) and the in-page collector's. */
    async errors() {
      const inPage = await within(
        engine,
        'errors',
        impl.run(() => (window.__harnessErrors || []).slice()),
      ).catch(() => []);
      return [...new Set([...impl.driverErrors, ...(inPage || [])])];
    },
    /** The driver's console messages so far ('type: text'); WebKit's driver has none (pages
     *  that need them record console calls themselves). */
    consoleMessages: async () => impl.console.slice(),
    async screenshot(path, { fullPage = false } = {}) {
      await writeFile(path, await within(engine, 'screenshot', impl.shot(fullPage)));
    },
    close: () => within(engine, 'close', impl.close()),
  };
  return api;
}

/** The page API over a playwright-core or puppeteer-core page (the two share these events and
 *  methods): driver-reported page errors and console messages are collected. */
function driverPageApi(engine, page) {
  const driverErrors = [],
    console = [];
  page.on('pageerror', (e) => driverErrors.push(String(e)));
  page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
  return pageApi(engine, {
    driverErrors,
    console,
    goto: (url) => page.goto(url, { waitUntil: 'load' }),
    run: (fn, arg) => page.evaluate(fn, arg),
    shot: (fullPage) => page.screenshot({ fullPage }),
    close: () => page.close(),
  });
}

async function launchChromium({ args = [] } = {}) {
  const browser = await launch(args);
  return {
    version: browser.version(),
    async newPage({ viewport = { width: 1280, height: 800 } } = {}) {
      return driverPageApi('chromium', await browser.newPage({ viewport }));
    },
    close: () => browser.close(),
  };
}

async function launchFirefox() {
  if (!existsSync(PATHS.firefox)) throw missing('firefox');
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: PATHS.firefox,
    protocol: 'webDriverBiDi',
    headless: true,
    // No telemetry, updates or first-run pages: nothing leaves 127.0.0.1.
    // FIREFOX_PREFS (JSON): more prefs, for experiments (e.g. the JIT's inlining limits).
    extraPrefsFirefox: {
      'browser.shell.checkDefaultBrowser': false,
      'app.update.enabled': false,
      ...(process.env.FIREFOX_PREFS ? JSON.parse(process.env.FIREFOX_PREFS) : {}),
    },
  });
  return {
    version: await browser.version(),
    async newPage({ viewport = { width: 1280, height: 800 } } = {}) {
      const page = await browser.newPage();
      await page.setViewport(viewport);
      return driverPageApi('firefox', page);
    },
    close: () => browser.close(),
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Start Xvfb on a free display (it picks one and writes its number to -displayfd). */
function startXvfb() {
  return new Promise((resolve, reject) => {
    const child = spawn(
      XVFB,
      ['-displayfd', '1', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`Xvfb exited (${code}) before giving a display`)),
    );
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, display: `:${out.trim()}` });
    });
  });
}

// Results cross the WebDriver wire as JSON; undefined, NaN and the infinities are tagged so
// that they come back as they were (as playwright and puppeteer return them).
const TAG = '\u0000perfshim:';
function untag(v) {
  if (typeof v === 'string' && v.startsWith(TAG))
    return { undefined, NaN, Infinity, '-Infinity': -Infinity }[v.slice(TAG.length)];
  if (Array.isArray(v)) return v.map(untag);
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) v[k] = untag(v[k]);
  }
  return v;
}

async function launchWebKit() {
  for (const p of [PATHS.webkit, WEBKIT_DRIVER, XVFB]) if (!existsSync(p)) throw missing('webkit');
  const { Builder } = await import('selenium-webdriver');
  const { child: xvfb, display } = await startXvfb();
  const port = await freePort();
  const driverProc = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], {
    env: { ...process.env, DISPLAY: display },
    stdio: 'ignore',
  });
  const kill = () => {
    driverProc.kill('SIGTERM');
    xvfb.kill('SIGTERM');
    process.off('exit', kill);
  };
  // Also when the test process ends early (a failed hook, a closed pipe): no stray X server.
  process.on('exit', kill);
  try {
    for (let i = 0; ; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/status`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (i > 100) throw new Error('webkit: WebKitWebDriver did not start');
      await sleep(50);
    }
  } catch (e) {
    kill();
    throw e;
  }
  const capabilities = {
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: PATHS.webkit, args: ['--automation'] },
  };
  // WebKitWebDriver allows one session: pages are windows of it, switched to before each call.
  let driver = null,
    version = '',
    current = null;
  const open = new Set();
  const on = async (handle) => {
    if (current !== handle) {
      await driver.switchTo().window(handle);
      current = handle;
    }
    return driver;
  };
  return {
    get version() {
      return version;
    },
    async newPage({ viewport = { width: 1280, height: 800 } } = {}) {
      let handle;
      if (!driver) {
        driver = await new Builder()
          .usingServer(`http://127.0.0.1:${port}`)
          .withCapabilities(capabilities)
          .build();
        version = (await driver.getCapabilities()).get('browserVersion') || '';
        await driver.manage().setTimeouts({ script: 120000, pageLoad: 60000 });
        handle = await driver.getWindowHandle();
      } else {
        const spare = (await driver.getAllWindowHandles()).find((h) => !open.has(h));
        if (spare) handle = spare;
        else {
          await driver.switchTo().newWindow('window');
          handle = await driver.getWindowHandle();
        }
      }
      current = null;
      await on(handle);
      open.add(handle);
      await driver.manage().window().setRect({ width: viewport.width, height: viewport.height });
      return pageApi('webkit', {
        driverErrors: [],
        console: [],
        goto: async (url) => (await on(handle)).get(url),
        async run(fn, arg) {
          const d = await on(handle);
          const json = await d.executeAsyncScript(
            `const done = arguments[arguments.length - 1];
            const tag = (k, v) => v === undefined ? ${JSON.stringify(TAG)} + 'undefined'
              : typeof v === 'number' && !Number.isFinite(v) ? ${JSON.stringify(TAG)} + String(v) : v;
            Promise.resolve().then(() => (${fn})(arguments[0])).then(
              (v) => done(JSON.stringify({ ok: v }, tag)),
              (e) => done(JSON.stringify({ error: String(e && e.stack || e), message: String(e && e.message || e) })));`,
            arg === undefined ? null : arg,
          );
          const r = JSON.parse(json);
          if ('error' in r) {
            const e = new Error(`webkit: ${r.message}`);
            e.stack = r.error;
            throw e;
          }
          return untag(r.ok);
        },
        shot: async () => Buffer.from(await (await on(handle)).takeScreenshot(), 'base64'),
        async close() {
          // The session's last window stays (closing it ends the session): it is blanked.
          open.delete(handle);
          const d = await on(handle);
          if ((await d.getAllWindowHandles()).length > 1) {
            await d.close();
            current = null;
          } else await d.get('about:blank');
        },
      });
    },
    async close() {
      try {
        if (driver) await driver.quit().catch(() => {});
      } finally {
        kill();
      }
    },
  };
}

const LAUNCHERS = { chromium: launchChromium, firefox: launchFirefox, webkit: launchWebKit };

/** Launch `engine` ('chromium' | 'firefox' | 'webkit'). Options: `args` (Chromium switches).
 *  Resolves to { engine, version, newPage({viewport}), close() }. */
export async function launchEngine(engine, options = {}) {
  if (!LAUNCHERS[engine]) throw new Error(`unknown engine ${engine}`);
  const b = await within(engine, 'launch', LAUNCHERS[engine](options));
  const { newPage, close } = b;
  return {
    engine,
    get version() {
      return b.version;
    },
    newPage: (opts) => within(engine, 'newPage', newPage.call(b, opts)),
    close: () => within(engine, 'close', close.call(b)),
  };
}

/** The engines a run covers: all three, or the comma-separated PERFSHIM_ENGINES. An engine left
 *  out is reported as a skipped test with the reason (never silently). */
export function selectedEngines() {
  const asked = process.env.PERFSHIM_ENGINES;
  if (!asked) return ENGINES;
  const list = asked
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const e of list)
    if (!ENGINES.includes(e)) throw new Error(`PERFSHIM_ENGINES: unknown engine ${e}`);
  return ENGINES.filter((e) => list.includes(e));
}

/** Run `define(engine)` inside a `describe(engine)` for each selected engine, in turn (one
 *  browser per engine per file); engines left out by PERFSHIM_ENGINES show as skipped tests. */
export function forEachEngine(define) {
  const chosen = selectedEngines();
  const each = () => {
    for (const engine of ENGINES) {
      if (chosen.includes(engine))
        describe(engine, { timeout: SUITE_TIMEOUT }, () => define(engine));
      else
        test(`${engine}: not run`, {
          skip: `PERFSHIM_ENGINES=${process.env.PERFSHIM_ENGINES}`,
        }, () => {});
    }
  };
  // In turn, not in parallel: three engines at once on two cores starved WebKit's driver
  // until it hung (tried on timeline.test.js).
  each();
}
