// make demo: serve the demo on http://127.0.0.1:8080/demo/ (PORT to change), with the headers
// that unlock everything (Document-Policy: js-profiling, COOP/COEP for cross-origin isolation),
// and the same page without them at /demo/plain/ so the fallbacks can be seen too.
import { readFileSync } from 'node:fs';
import { serve, ROOT } from '../tools/static-server.mjs';

const port = Number(process.env.PORT || 8080);
const unlocked = {
  'Document-Policy': 'js-profiling',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};
const page = readFileSync(new URL('./index.html', import.meta.url), 'utf8')
  .replace('<head>', '<head>\n<base href="/demo/">');
const server = await serve({
  port,
  root: ROOT,
  headers: (path) => (path.startsWith('/demo/plain') ? {} : unlocked),
  routes: {
    '/': { body: '<!doctype html><meta http-equiv="refresh" content="0; url=/demo/">' },
    '/demo/plain/': { body: page, headers: {} },
    '/demo/plain/index.html': { body: page, headers: {} },
  },
});
console.log(`perfshim demo: ${server.url}/demo/  (unlocked: js-profiling policy, cross-origin isolated)`);
console.log(`               ${server.url}/demo/plain/  (no special headers: see the fallbacks)`);
console.log('Ctrl-C to stop.');
