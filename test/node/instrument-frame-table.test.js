// A file's frame table, as the transform writes it into the file and the profiler reads it back
// (probes.js: `reg` keeps the text, `readFrameTable` decodes it): names joined by a separator
// no name holds, positions as base-36 differences, several sources through an input map. What
// the profiler reads must be the frames the transform returned, in order, after other files'.
import test from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import MagicString, { Bundle } from 'magic-string';
import { instrument } from '../../glue/instrument/transform.js';
import { PROBES_KEY, probeFrames } from '../../glue/instrument/probes.js';

const opts = { everyFunction: true, sourceType: 'script' };

/** Runs the instrumented scripts in one fresh realm; the frames its probes read back. */
function framesAfter(...outs) {
  const ctx = vm.createContext({});
  for (const o of outs) vm.runInContext(o.code, ctx);
  return probeFrames(vm.runInContext(`globalThis[Symbol.for(${JSON.stringify(PROBES_KEY)})]`, ctx));
}
const asRows = (frames) => frames.map((f) => [f.name, f.url, f.line, f.column]);

test('frame table: names with commas, long minified lines, and a second file', () => {
  const wide = `${' '.repeat(70000)}function far() { return g(); }`;
  const a = instrument(
    `var o = { "a,b"() { return g(); }, ['x' + 1]() { return g(); } };\n` +
      `function p() { return g(); }\n${wide}\nvar anon = function () { return g(); };`,
    { ...opts, file: 'a.js' },
  );
  assert.ok(
    a.code.includes('.reg(5,["a.js"],"\\u0001a,b\\u0001'),
    'a name holds a comma: another separator',
  );
  const b = instrument('function q() { return g(); }\nfunction r() { return g(); }', {
    ...opts,
    file: 'b.js',
  });
  assert.ok(b.code.includes('.reg(2,["b.js"],",q,r",'), 'names joined by commas');
  assert.ok(a.frames[3].column > 70000, 'a column past 36^3');
  assert.deepEqual(framesAfter(a, b), [...asRows(a.frames), ...asRows(b.frames)]);
});

test('frame table: frames of several sources (an input map)', () => {
  const bundle = new Bundle();
  bundle.addSource({
    filename: 'one.ts',
    content: new MagicString('function one() { return g(); }\n'),
  });
  bundle.addSource({
    filename: 'two.ts',
    content: new MagicString(
      '\n\nfunction two() { return g(); }\nfunction three() { return g(); }\n',
    ),
  });
  const code = bundle.toString();
  const inputMap = bundle.generateMap({ hires: true, includeContent: true });
  const out = instrument(code, { ...opts, file: 'bundle.js', inputMap: inputMap.toString() });
  assert.deepEqual(
    out.frames.map((f) => f.url),
    ['one.ts', 'two.ts', 'two.ts'],
  );
  assert.ok(out.code.includes('.reg(3,["one.ts","two.ts"],",one,two,three",'), 'two sources');
  assert.deepEqual(framesAfter(out), asRows(out.frames));
});
