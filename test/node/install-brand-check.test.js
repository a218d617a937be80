// Installed methods accept a genuine Performance object as `this` by its brand, not by its
// prototype: objects that only inherit from Performance.prototype (or plain objects) are an
// Illegal invocation TypeError, the host's own object works, for every installed method.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { installed } = await import('../../glue/auto.js');
const proto = Object.getPrototypeOf(globalThis.performance);
const CALLS = {
  mark: ['x'],
  measure: ['m', { start: 0, end: 1 }],
  clearMarks: [],
  clearMeasures: [],
  getEntries: [],
  getEntriesByType: ['mark'],
  getEntriesByName: ['x'],
};

test('installed over the host', () => {
  assert.ok(installed.installed.includes('timeline'));
});

for (const [method, args] of Object.entries(CALLS)) {
  test(`${method}: an object inheriting from Performance.prototype is not a Performance`, () => {
    for (const receiver of [Object.create(proto), {}, null]) {
      assert.throws(
        () => proto[method].apply(receiver, args),
        (e) =>
          e instanceof TypeError &&
          e.name === 'TypeError' &&
          e.message === `Failed to execute '${method}' on 'Performance': Illegal invocation`,
      );
    }
    assert.doesNotThrow(() => proto[method].apply(globalThis.performance, args));
  });
}

test('measureUserAgentSpecificMemory: the same brand check (a rejected promise)', async () => {
  await assert.rejects(
    proto.measureUserAgentSpecificMemory.call(Object.create(proto)),
    (e) => e instanceof TypeError && e.name === 'TypeError',
  );
});
