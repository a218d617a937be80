// Shared harness for the Chromium suites: a static server for the repository on 127.0.0.1
// (per-path response headers, e.g. Document-Policy or COOP/COEP) and Debian's Chromium driven
// by playwright-core. Nothing is downloaded.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css', '.png': 'image/png',
};

/** Serve ROOT on 127.0.0.1. `headers(path)` returns extra headers for a path; `routes` maps a
 *  path to {body, type, headers} for generated pages. */
export async function serve({ headers = () => ({}), routes = {} } = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    try {
      const extra = headers(path) || {};
      if (routes[path]) {
        const r = routes[path];
        res.writeHead(200, { 'content-type': r.type || TYPES['.html'], 'cache-control': 'no-store', ...extra, ...(r.headers || {}) });
        res.end(r.body);
        return;
      }
      const file = normalize(join(ROOT, path));
      if (!file.startsWith(ROOT)) throw new Error('outside root');
      const s = await stat(file);
      if (!s.isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store', ...extra });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, port, close: () => new Promise((r) => server.close(r)) };
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
