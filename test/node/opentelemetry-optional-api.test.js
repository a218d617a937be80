// perfshim/opentelemetry without @opentelemetry/api installed (an optional peer dependency): the
// module still imports, and traceMeasures() throws an Error that says what to install.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

const MODULE = new URL('../../glue/node/opentelemetry.js', import.meta.url).href;
// A resolve hook in a child process makes '@opentelemetry/api' unresolvable, as if absent.
const HOOK = `export async function resolve(specifier, context, next) {
  if (specifier === '@opentelemetry/api') {
    throw Object.assign(new Error("Cannot find package '@opentelemetry/api'"), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}`;
const SCRIPT = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
const { traceMeasures } = await import(${JSON.stringify(MODULE)});
let out;
try { traceMeasures(); out = { threw: false }; } catch (e) { out = { threw: true, name: e.name, message: e.message }; }
console.log(JSON.stringify(out));`;

test('without @opentelemetry/api: the import works, traceMeasures() says what to install', () => {
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    encoding: 'utf8',
  });
  const out = JSON.parse(stdout.trim().split('\n').at(-1));
  assert.equal(out.threw, true);
  assert.equal(out.name, 'Error');
  assert.match(
    out.message,
    /needs the package @opentelemetry\/api \(npm install @opentelemetry\/api\)/,
  );
});
