// make demo: serve the demo on http://127.0.0.1:8080/demo/ (PORT to change), with the headers
// that unlock everything (Document-Policy: js-profiling, COOP/COEP for cross-origin isolation),
// and the same page without them at /demo/plain/ so the fallbacks can be seen too.
import { serve, ROOT } from '../tools/static-server.mjs';
import { demoHeaders, demoRoutes } from './headers.mjs';
import { startFieldCollector } from './field-server.mjs';

const port = Number(process.env.PORT || 8080);
const field = await startFieldCollector(); // the Field panel's collector, on its own port
const routes = demoRoutes({ fieldCollector: field.url });
const server = await serve({ port, root: ROOT, headers: demoHeaders, routes });
console.log(
  `perfshim demo: ${server.url}/demo/  (unlocked: js-profiling policy, cross-origin isolated)`,
);
console.log(`               ${server.url}/demo/plain/  (no special headers: see the fallbacks)`);
console.log(`               ${field.url}/upload  (the Field panel's collector)`);
console.log('Ctrl-C to stop.');
