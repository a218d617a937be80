// The optional peer dependency @opentelemetry/api, loaded once: `api` (null when it is not
// installed) and `apiError` (why not). The CommonJS build (dist/opentelemetry.cjs) swaps this
// file for opentelemetry-api.cjs.js, which loads it with require() (no top-level await there).
let api = null;
let apiError = null;
try {
  api = await import('@opentelemetry/api');
} catch (e) {
  apiError = e;
}

export { api, apiError };
