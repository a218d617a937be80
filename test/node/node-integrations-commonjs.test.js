// require('perfshim/server-timing'), require('perfshim/opentelemetry') and require('perfshim/pprof')
// (the CommonJS builds in dist/) share one realm with `import 'perfshim'`: measures made through
// either entry reach the CJS middleware's header, the CJS tracer's spans and the same pprof bytes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/commonjs-integrations.cjs', import.meta.url));

test('CommonJS builds of the Node integrations see the measures made through the ES module', () => {
  const out = JSON.parse(execFileSync(process.execPath, [FIXTURE], { encoding: 'utf8' }));
  assert.equal(out.samePerformance, true);
  assert.deepEqual(out.spans, ['esm-measure', 'cjs-measure']);
  assert.match(out.header, /^db;dur=2\.5, total;dur=[\d.]+$/);
  assert.equal(out.measuresLeft, 0, "the request's measure is cleared when it ends");
  assert.ok(out.pprofBytes > 0);
  assert.equal(out.pprofSame, true);
});
