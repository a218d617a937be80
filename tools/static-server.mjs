// A small static file server on 127.0.0.1, with per-path extra headers and generated routes.
// Used by the demo (`make demo`, `npm start`) and the browser test harness. It serves only
// PUBLIC: the demo, the built package (dist/, wasm/), the glue/ modules and test fixtures the
// browser suites load, and package.json (fetched as a same-origin resource); never .git, dot
// files or the rest of the repository. A malformed request (bad percent-encoding) gets a 400
// and the server keeps serving.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What is served from ROOT: directories (ending in '/') and single files, as URL paths. */
export const PUBLIC = Object.freeze([
  '/demo/',
  '/dist/',
  '/wasm/',
  '/glue/',
  '/test/browser/fixtures/',
  '/package.json',
]);
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The request's decoded path, or null when it cannot be decoded (a 400). */
function requestPath(url) {
  try {
    return decodeURIComponent(new URL(url, 'http://x').pathname);
  } catch {
    return null;
  }
}

/** Whether a decoded, normalized URL path may be served from ROOT. */
function isPublic(path) {
  if (path.includes('\0') || path.split('/').some((seg) => seg.startsWith('.'))) return false;
  return PUBLIC.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p));
}

function reply(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** Serve PUBLIC from `root`. `headers(path)` gives extra response headers for a path; `routes`
 *  maps a path to {body, type, headers} for generated pages. Resolves to {url, port, close}. */
export async function serve({ headers = () => ({}), routes = {}, port = 0, root = ROOT } = {}) {
  const server = createServer(async (req, res) => {
    let path = requestPath(req.url);
    if (path === null) return reply(res, 400, 'bad request: malformed URL');
    try {
      const extra = headers(path) || {};
      const route = Object.hasOwn(routes, path) ? routes[path] : null;
      if (route) {
        res.writeHead(200, {
          'content-type': route.type || TYPES['.html'],
          'cache-control': 'no-store',
          ...extra,
          ...(route.headers || {}),
        });
        res.end(route.body);
        return;
      }
      path = posix.normalize(path);
      if (path.endsWith('/')) path += 'index.html';
      if (!isPublic(path)) return reply(res, 404, 'not found');
      const file = join(root, path);
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] || 'application/octet-stream',
        'cache-control': 'no-store',
        ...extra,
      });
      res.end(body);
    } catch {
      if (!res.headersSent) reply(res, 404, 'not found');
      else res.destroy();
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actual = server.address().port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    close: () => new Promise((r) => server.close(r)),
  };
}
