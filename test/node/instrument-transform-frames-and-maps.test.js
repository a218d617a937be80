// The transform's frame table (names as a profiler shows them, 1-based positions in the original
// source) and its source maps (exact for its own edits, composed with an input map), read back
// with @jridgewell/trace-mapping.
import test from 'node:test';
import assert from 'node:assert/strict';
import { TraceMap, originalPositionFor, generatedPositionFor } from '@jridgewell/trace-mapping';
import MagicString from 'magic-string';
import { Parser } from 'acorn';
import { instrument, PROBES_TEXT } from './fixtures/instrument-every-function.mjs';
import { createProbes } from '../../glue/instrument/probes.js';

const src = [
  'function decl() {}',
  'const arrow = () => 1;',
  'let expr; expr = function () {};',
  'class K { constructor() {} method() {} get acc() { return 1; } static st() {} #priv() {} field = () => 0; }',
  'const obj = { m() {}, get g() { return 1; }, p: () => 2 };',
  'ns.deep.fn = function () {};',
  'function outer({ cb = () => 0 } = {}) { return cb; }',
  'export default async function* () {}',
  '[1].map(function (x) { return x; });',
].join('\n');

test('each function is registered once, named as V8 names it, at its parameter list (1-based), as V8 places it', () => {
  const { frames } = instrument(src, {
    file: 'src/kinds.js',
    url: 'https://example.test/kinds.js',
  });
  const got = frames.map((f) => [f.name, f.line, f.column]);
  const lines = src.split('\n');
  const at = (line, text) => [line, lines[line - 1].indexOf(text) + 1];
  assert.deepEqual(got, [
    ['decl', ...at(1, '() {}')],
    ['arrow', ...at(2, '()')],
    ['expr', ...at(3, '() {}')],
    ['K', ...at(4, '() {} method')],
    ['method', ...at(4, '() {} get')],
    ['get acc', ...at(4, '() { return 1')],
    ['st', ...at(4, '() {} #priv')],
    ['#priv', ...at(4, '() {} field')],
    ['field', ...at(4, '() => 0')],
    ['m', ...at(5, '() {}')],
    ['get g', ...at(5, '() { return 1')],
    ['p', ...at(5, '() => 2')],
    ['ns.deep.fn', ...at(6, '() {}')],
    ['outer', ...at(7, '({ cb')],
    ['cb', ...at(7, '() => 0')],
    ['default', ...at(8, '() {}')],
    ['', ...at(9, '(x)')],
  ]);
  for (const f of frames) assert.equal(f.url, 'https://example.test/kinds.js');
});

test('the output maps every original token back to its position', () => {
  const out = instrument(src, { file: 'kinds.js' });
  const map = new TraceMap(out.map);
  assert.deepEqual(map.sources, ['kinds.js']);
  const lines = src.split('\n');
  for (const [line, word] of [
    [1, 'decl'],
    [4, 'method'],
    [5, 'get'],
    [7, 'cb'],
    [9, 'map'],
  ]) {
    const column = lines[line - 1].indexOf(word);
    const gen = generatedPositionFor(map, { source: 'kinds.js', line, column });
    assert.ok(gen.line !== null, `${word} is mapped`);
    const outLine = out.code.split('\n')[gen.line - 1];
    assert.equal(outLine.slice(gen.column, gen.column + word.length), word);
    const back = originalPositionFor(map, gen);
    assert.deepEqual([back.line, back.column], [line, column]);
  }
});

test("the header adds no line (each line stays where it was) and carries no comment of the probes' source", () => {
  const out = instrument(src, { file: 'kinds.js' }).code;
  const lines = out.split('\n');
  assert.equal(lines.length, src.split('\n').length);
  const names = ['decl', 'arrow', 'expr', 'class K', 'obj', 'ns.deep', 'outer', 'default', 'map'];
  names.forEach((name, i) => {
    assert.ok(lines[i].includes(name), `line ${i + 1} still holds ${name}`);
  });
  assert.ok(out.includes('function createProbes()'), 'the probe runtime is inlined');
  assert.ok(!out.includes('// '), 'no line comment');
  assert.ok(!out.includes('/**'), 'no doc comment');
});

test("the one-line probe runtime parses to the same program as createProbes's source (no line joined into another statement)", () => {
  // Positions and comments aside, the trees must be equal: a statement of createProbes that
  // relied on a line break (automatic semicolon insertion) would parse differently on one line.
  const tree = (text) =>
    JSON.stringify(Parser.parse(`(${text})`, { ecmaVersion: 'latest' }), (key, value) =>
      key === 'start' || key === 'end' || key === 'raw' ? undefined : value,
    );
  assert.ok(!PROBES_TEXT.includes('\n'));
  assert.equal(tree(PROBES_TEXT), tree(createProbes.toString()));
  // And the test can fail: a join that breaks a statement apart is seen.
  assert.notEqual(
    tree('function f() { let a = 1\n(g)() }'),
    tree('function f() { let a = 1; (g)() }'),
  );
});

test('an input map is composed: frames and the output map point into the original file', () => {
  // A "compiled" input: two lines of prologue added in front of the original.
  const original = 'export function answer() {\n  return 42;\n}\n';
  const ms = new MagicString(original);
  ms.prepend('// banner\n// banner 2\n');
  const compiled = ms.toString();
  const inputMap = ms.generateMap({ source: 'answer.ts', hires: true, includeContent: true });
  const out = instrument(compiled, { file: 'answer.js', inputMap: inputMap.toString() });
  assert.deepEqual(
    out.frames.map((f) => [f.name, f.url, f.line, f.column]),
    [['answer', 'answer.ts', 1, 23]], // the ( of its parameters
  );
  const map = new TraceMap(out.map);
  assert.deepEqual(map.sources, ['answer.ts']);
  const at = out.code
    .split('\n')
    .findIndex((l) => l.includes('return  (__pst&&(__pss[0]=__pst-1),42'));
  const col = out.code.split('\n')[at].indexOf('return  (');
  const back = originalPositionFor(map, { line: at + 1, column: col });
  assert.deepEqual([back.source, back.line, back.column], ['answer.ts', 2, 2]);
});
