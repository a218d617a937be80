// WebIDL shape of PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver and
// PerformanceObserverEntryList, as idlharness checks it: accessors on the prototypes (enumerable,
// configurable, getter only), brand checks, illegal constructors, interface objects' lengths,
// prototype chains, Symbol.toStringTag, and the default toJSON().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  performance,
  PerformanceEntry,
  PerformanceMark,
  PerformanceMeasure,
  PerformanceObserver,
  PerformanceObserverEntryList,
} from '../../glue/index.js';

const throwsType = (fn, msg) =>
  assert.throws(fn, (e) => e instanceof TypeError && e.name === 'TypeError', msg);

function accessor(proto, name) {
  const d = Object.getOwnPropertyDescriptor(proto, name);
  assert.ok(d, `${name} is an own property of the prototype`);
  assert.equal(typeof d.get, 'function', `${name} has a getter`);
  assert.equal(d.set, undefined, `${name} is readonly (no setter)`);
  assert.equal(d.enumerable, true, `${name} is enumerable`);
  assert.equal(d.configurable, true, `${name} is configurable`);
  assert.equal(d.get.length, 0);
  return d.get;
}

function operation(proto, name, length) {
  const d = Object.getOwnPropertyDescriptor(proto, name);
  assert.ok(d, `${name} is an own property of the prototype`);
  assert.equal(typeof d.value, 'function');
  assert.ok(
    d.enumerable && d.writable && d.configurable,
    `${name}: enumerable, writable, configurable`,
  );
  assert.equal(d.value.length, length, `${name}.length`);
  return d.value;
}

function toStringTag(proto, tag) {
  const d = Object.getOwnPropertyDescriptor(proto, Symbol.toStringTag);
  assert.ok(d, `${tag}.prototype has its own @@toStringTag`);
  assert.equal(d.value, tag);
  assert.equal(d.writable, false);
  assert.equal(d.enumerable, false);
  assert.equal(d.configurable, true);
}

test('PerformanceEntry.prototype: name, entryType, startTime, duration accessors and toJSON', () => {
  for (const name of ['name', 'entryType', 'startTime', 'duration'])
    accessor(PerformanceEntry.prototype, name);
  operation(PerformanceEntry.prototype, 'toJSON', 0);
  toStringTag(PerformanceEntry.prototype, 'PerformanceEntry');
});

test('entries have no own properties: the attributes live on the prototypes', () => {
  const m = performance.mark('own', { detail: 1 });
  const ms = performance.measure('own');
  assert.deepEqual(Reflect.ownKeys(m), []);
  assert.deepEqual(Reflect.ownKeys(ms), []);
});

test('PerformanceEntry getters are brand-checked (TypeError on other objects)', () => {
  for (const name of ['name', 'entryType', 'startTime', 'duration']) {
    const get = Object.getOwnPropertyDescriptor(PerformanceEntry.prototype, name).get;
    throwsType(() => get.call({}), `${name} on {}`);
    throwsType(
      () => get.call(Object.create(PerformanceEntry.prototype)),
      `${name} on Object.create(proto)`,
    );
    throwsType(() => get.call(undefined), `${name} on undefined`);
    throwsType(() => PerformanceMark.prototype[name], `PerformanceMark.prototype.${name}`);
  }
  throwsType(() => PerformanceEntry.prototype.toJSON.call({}), 'toJSON on {}');
});

test('the getters work through the prototype on every kind of entry', () => {
  const m = performance.mark('g', { startTime: 2 });
  const get = Object.getOwnPropertyDescriptor(PerformanceEntry.prototype, 'startTime').get;
  assert.equal(get.call(m), 2);
  assert.equal(
    Object.getOwnPropertyDescriptor(PerformanceEntry.prototype, 'name').get.call(m),
    'g',
  );
});

test('PerformanceMark.prototype: detail accessor, toStringTag, chain to PerformanceEntry', () => {
  accessor(PerformanceMark.prototype, 'detail');
  toStringTag(PerformanceMark.prototype, 'PerformanceMark');
  assert.equal(Object.getPrototypeOf(PerformanceMark.prototype), PerformanceEntry.prototype);
  assert.equal(Object.getPrototypeOf(PerformanceMark), PerformanceEntry);
  assert.deepEqual(Object.getOwnPropertyNames(PerformanceMark.prototype).sort(), [
    'constructor',
    'detail',
  ]);
});

test('PerformanceMeasure.prototype: detail accessor, toStringTag, chain to PerformanceEntry', () => {
  accessor(PerformanceMeasure.prototype, 'detail');
  toStringTag(PerformanceMeasure.prototype, 'PerformanceMeasure');
  assert.equal(Object.getPrototypeOf(PerformanceMeasure.prototype), PerformanceEntry.prototype);
  assert.equal(Object.getPrototypeOf(PerformanceMeasure), PerformanceEntry);
  assert.deepEqual(Object.getOwnPropertyNames(PerformanceMeasure.prototype).sort(), [
    'constructor',
    'detail',
  ]);
});

test('detail getters are brand-checked per interface', () => {
  const markDetail = Object.getOwnPropertyDescriptor(PerformanceMark.prototype, 'detail').get;
  const measureDetail = Object.getOwnPropertyDescriptor(PerformanceMeasure.prototype, 'detail').get;
  const mark = performance.mark('bd', { detail: 'mark detail' });
  const measure = performance.measure('bd', { start: 0, detail: 'measure detail' });
  assert.equal(markDetail.call(mark), 'mark detail');
  assert.equal(measureDetail.call(measure), 'measure detail');
  throwsType(() => markDetail.call({}), 'PerformanceMark detail on {}');
  throwsType(() => measureDetail.call({}), 'PerformanceMeasure detail on {}');
  throwsType(() => markDetail.call(measure), 'PerformanceMark detail on a PerformanceMeasure');
  throwsType(() => measureDetail.call(mark), 'PerformanceMeasure detail on a PerformanceMark');
});

test('Symbol.toStringTag gives the interface names', () => {
  const str = (v) => Object.prototype.toString.call(v);
  assert.equal(str(performance.mark('tag')), '[object PerformanceMark]');
  assert.equal(str(performance.measure('tag')), '[object PerformanceMeasure]');
  assert.equal(str(new PerformanceMark('tag')), '[object PerformanceMark]');
  assert.equal(str(PerformanceEntry.prototype), '[object PerformanceEntry]');
  assert.equal(str(new PerformanceObserver(() => {})), '[object PerformanceObserver]');
  toStringTag(PerformanceObserver.prototype, 'PerformanceObserver');
  toStringTag(PerformanceObserverEntryList.prototype, 'PerformanceObserverEntryList');
});

test('PerformanceEntry, PerformanceMeasure and PerformanceObserverEntryList are not constructible', () => {
  for (const C of [PerformanceEntry, PerformanceMeasure, PerformanceObserverEntryList]) {
    throwsType(() => new C(), `new ${C.name}()`);
    throwsType(() => new C('x'), `new ${C.name}('x')`);
    throwsType(() => C(), `${C.name}() without new`);
  }
});

test('PerformanceObserver needs new', () => {
  throwsType(() => PerformanceObserver(() => {}));
});

test('interface objects have the IDL lengths and names', () => {
  assert.equal(PerformanceEntry.length, 0);
  assert.equal(PerformanceMark.length, 1);
  assert.equal(PerformanceMeasure.length, 0);
  assert.equal(PerformanceObserver.length, 1);
  assert.equal(PerformanceObserverEntryList.length, 0);
  assert.equal(PerformanceEntry.name, 'PerformanceEntry');
  assert.equal(PerformanceMeasure.name, 'PerformanceMeasure');
  assert.equal(PerformanceObserver.name, 'PerformanceObserver');
  assert.equal(PerformanceObserverEntryList.name, 'PerformanceObserverEntryList');
});

test('PerformanceObserver.prototype operations and the static supportedEntryTypes accessor', () => {
  operation(PerformanceObserver.prototype, 'observe', 0);
  operation(PerformanceObserver.prototype, 'disconnect', 0);
  operation(PerformanceObserver.prototype, 'takeRecords', 0);
  accessor(PerformanceObserver, 'supportedEntryTypes');
  for (const op of ['observe', 'disconnect', 'takeRecords']) {
    throwsType(() => PerformanceObserver.prototype[op].call({}, { type: 'mark' }), `${op} on {}`);
  }
});

test('PerformanceObserverEntryList.prototype operations', () => {
  operation(PerformanceObserverEntryList.prototype, 'getEntries', 0);
  operation(PerformanceObserverEntryList.prototype, 'getEntriesByType', 1);
  operation(PerformanceObserverEntryList.prototype, 'getEntriesByName', 1);
  for (const op of ['getEntries', 'getEntriesByType', 'getEntriesByName']) {
    throwsType(() => PerformanceObserverEntryList.prototype[op].call({}, 'mark'), `${op} on {}`);
  }
});

test('toJSON of a mark: name, entryType, startTime, duration, detail', () => {
  const m = performance.mark('json', { startTime: 12.5, detail: { a: [1, 'two'] } });
  const json = m.toJSON();
  assert.equal(Object.getPrototypeOf(json), Object.prototype);
  assert.deepEqual(json, {
    name: 'json',
    entryType: 'mark',
    startTime: 12.5,
    duration: 0,
    detail: { a: [1, 'two'] },
  });
  assert.deepEqual(JSON.parse(JSON.stringify(m)), json);
  assert.equal(performance.mark('json-null').toJSON().detail, null);
});

test('toJSON of a measure: name, entryType, startTime, duration, detail', () => {
  const ms = performance.measure('json', { start: 2, end: 7, detail: 'd' });
  assert.deepEqual(ms.toJSON(), {
    name: 'json',
    entryType: 'measure',
    startTime: 2,
    duration: 5,
    detail: 'd',
  });
  assert.deepEqual(JSON.parse(JSON.stringify(ms)), ms.toJSON());
});

test('toJSON keys come in IDL order: the PerformanceEntry attributes, then detail', () => {
  const keys = Object.keys(performance.mark('keys').toJSON());
  assert.deepEqual(keys.slice(0, 4), ['name', 'entryType', 'startTime', 'duration']);
  assert.equal(keys[keys.length - 1], 'detail');
});

test('instanceof PerformanceEntry holds for marks and measures, not for look-alikes', () => {
  assert.ok(performance.mark('i') instanceof PerformanceEntry);
  assert.ok(performance.measure('i') instanceof PerformanceEntry);
  assert.equal({ name: 'i', entryType: 'mark' } instanceof PerformanceEntry, false);
});

test('entry attributes cannot be assigned', () => {
  const m = performance.mark('ro', { startTime: 1 });
  assert.throws(() => {
    'use strict';
    m.startTime = 5;
  }, TypeError);
  assert.equal(m.startTime, 1);
  assert.throws(() => {
    m.name = 'x';
  }, TypeError);
  assert.equal(m.name, 'ro');
});

test('operations are not constructors and have their names', () => {
  const proto = Object.getPrototypeOf(performance);
  for (const name of [
    'mark',
    'measure',
    'clearMarks',
    'clearMeasures',
    'getEntries',
    'getEntriesByType',
    'getEntriesByName',
  ]) {
    assert.equal(proto[name].name, name);
    throwsType(() => new proto[name]('x'), `new performance.${name}()`);
  }
  for (const name of ['observe', 'disconnect', 'takeRecords']) {
    assert.equal(PerformanceObserver.prototype[name].name, name);
    throwsType(
      () => new PerformanceObserver.prototype[name](),
      `new PerformanceObserver.prototype.${name}()`,
    );
  }
  throwsType(() => new PerformanceEntry.prototype.toJSON());
});

test('interface objects: prototype is non-writable, non-enumerable, non-configurable; constructor links back', () => {
  for (const C of [
    PerformanceEntry,
    PerformanceMark,
    PerformanceMeasure,
    PerformanceObserver,
    PerformanceObserverEntryList,
  ]) {
    const d = Object.getOwnPropertyDescriptor(C, 'prototype');
    assert.deepEqual([d.writable, d.enumerable, d.configurable], [false, false, false], C.name);
    assert.equal(C.prototype.constructor, C);
    assert.equal(Object.getOwnPropertyDescriptor(C.prototype, 'constructor').enumerable, false);
  }
});
