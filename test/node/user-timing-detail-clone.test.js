// detail is StructuredSerialize + StructuredDeserialize: perfshim's fast copy of plain values
// must give exactly what the host's structuredClone gives, in the corner cases too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from '../../glue/index.js';

const detailOf = (value) => performance.mark('clone', { detail: value }).detail;

test('an own "__proto__" key stays an own data property, and the prototype stays Object.prototype', () => {
  for (const json of [
    '{"__proto__": {"x": 1}, "a": {"b": 2}}',
    '{"__proto__": 5, "a": 1}',
    '{"__proto__": null}',
  ]) {
    const input = JSON.parse(json);
    const d = detailOf(input);
    assert.deepEqual(Object.keys(d), Object.keys(structuredClone(input)), json);
    assert.equal(Object.getPrototypeOf(d), Object.prototype, json);
    assert.ok(Object.prototype.hasOwnProperty.call(d, '__proto__'), json);
    assert.equal(d.x, undefined, json);
  }
  const nested = detailOf({ inner: JSON.parse('{"__proto__": {"x": 1}}') });
  assert.ok(Object.prototype.hasOwnProperty.call(nested.inner, '__proto__'));
  assert.equal(Object.getPrototypeOf(nested.inner), Object.prototype);
});

test('an array with holes and named keys keeps both (the count of keys does not hide the holes)', () => {
  // biome-ignore lint/suspicious/noSparseArray: the hole is what this test is about
  const a = [1, , 3];
  a.foo = 'bar';
  const d = detailOf(a);
  assert.equal(d.length, 3);
  assert.equal(1 in d, false, 'the hole stays a hole');
  assert.equal(d.foo, 'bar', 'the named key is kept');
  const b = [1, 2];
  b.length = 3;
  b.x = 0;
  const n = detailOf({ arr: b }).arr;
  assert.equal(n.length, 3);
  assert.equal(2 in n, false);
  assert.equal(n.x, 0);
});

test('plain trees still copy to equal, independent values', () => {
  const input = { a: 1, s: 'x', n: null, arr: [1, { b: [2, 3] }], o: { deep: { er: true } } };
  const d = detailOf(input);
  assert.deepEqual(d, structuredClone(input));
  assert.notEqual(d, input);
  assert.notEqual(d.arr, input.arr);
  assert.notEqual(d.o.deep, input.o.deep);
});
