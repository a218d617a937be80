// Exception messages quote user-given names cut to a bounded length: an unknown 10 MB mark
// name gives a SyntaxError with a short message (and a cut never splits a surrogate pair).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance, PerformanceMark } from '../../glue/index.js';

const huge = 'x'.repeat(10 * 1024 * 1024);

test('measure() naming an unknown 10 MB mark: SyntaxError with a short message', () => {
  for (const call of [
    () => performance.measure('m', huge),
    () => performance.measure('m', { start: huge }),
    () => performance.measure('m', undefined, huge),
  ]) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof DOMException && e.name === 'SyntaxError', String(e));
      assert.ok(e.message.length < 300, `message is ${e.message.length} characters`);
      assert.match(e.message, /The mark 'x{100}…' does not exist\./);
      return true;
    });
  }
});

test('a short unknown name is quoted whole', () => {
  assert.throws(
    () => performance.measure('m', 'not-there'),
    (e) =>
      e instanceof DOMException &&
      e.name === 'SyntaxError' &&
      e.message.endsWith("The mark 'not-there' does not exist."),
  );
});

test('a negative startTime with a 10 MB name: TypeError with a short message', () => {
  for (const call of [
    () => performance.mark(huge, { startTime: -1 }),
    () => new PerformanceMark(huge, { startTime: -1 }),
  ]) {
    assert.throws(
      call,
      (e) => e instanceof TypeError && e.name === 'TypeError' && e.message.length < 300,
    );
  }
});

test('the cut does not split a surrogate pair', () => {
  const name = `${'a'.repeat(99)}😀${'b'.repeat(200)}`;
  assert.throws(
    () => performance.measure('m', name),
    (e) => {
      assert.ok(e instanceof DOMException && e.name === 'SyntaxError');
      assert.ok(e.message.includes(`'${'a'.repeat(99)}…'`), e.message);
      return true;
    },
  );
});
