// A small static file server for the repository on 127.0.0.1, with per-path extra headers and
// generated routes. Used by the demo (`make demo`) and the Chromium test harness.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css; charset=utf-8',
  '.png': 'image/png', '.svg': 'image/svg+xml',
};

/** Serve ROOT. `headers(path)` gives extra response headers for a path; `routes` maps a path to
 *  {body, type, headers} for generated pages. Resolves to {url, port, close}. */
export async function serve({ headers = () => ({}), routes = {}, port = 0, root = ROOT } = {}) {
  const server = createServer(async (req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    try {
      const extra = headers(path) || {};
      const route = routes[path];
      if (route) {
        res.writeHead(200, { 'content-type': route.type || TYPES['.html'], 'cache-control': 'no-store', ...extra, ...(route.headers || {}) });
        res.end(route.body);
        return;
      }
      if (path.endsWith('/')) path += 'index.html';
      const file = normalize(join(root, path));
      if (!file.startsWith(root)) throw new Error('outside the root');
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store', ...extra });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('not found');
    }
  });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', resolve); });
  const actual = server.address().port;
  return { url: `http://127.0.0.1:${actual}`, port: actual, close: () => new Promise((r) => server.close(r)) };
}
