// Shared harness for the Chromium suites: a static server for the repository on 127.0.0.1
// (per-path response headers, e.g. Document-Policy or COOP/COEP) and Debian's Chromium driven
// by playwright-core. Nothing is downloaded.
import { serve as serveStatic, ROOT } from '../../tools/static-server.mjs';

export { ROOT };

/** Serve the repository on 127.0.0.1. `headers(path)` returns extra headers for a path;
 *  `routes` maps a path to {body, type, headers} for generated pages. */
export function serve(options = {}) {
  return serveStatic(options);
}

export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launch Debian's Chromium. `args` are extra command-line switches. */
export async function launch(args = []) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_FLAGS, ...args],
  });
}

/** Open `url` in a fresh page; page errors and console errors are collected. */
export async function openPage(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}
