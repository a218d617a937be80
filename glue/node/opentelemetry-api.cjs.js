// The CommonJS build's opentelemetry-api.js (tools/build-dist.mjs swaps it in): the optional peer
// dependency @opentelemetry/api through require(), so require('perfshim/opentelemetry') loads
// the API's CommonJS build, the one a CommonJS application registers its SDK with.
let api = null;
let apiError = null;
try {
  api = require('@opentelemetry/api');
} catch (e) {
  apiError = e;
}

export { api, apiError };
