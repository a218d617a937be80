// User Timing 3: every exception performance.measure() throws, with its type and name, and which
// one wins when several apply (WebIDL conversion, then measure() step 1's checks in order, then
// step 2 (end time), step 3 (start time), then the detail's StructuredSerialize).
// WPT: user-timing/measure-exceptions.html, measure_exceptions_navigation_timing.html,
// measure-l3.any.js, measure_syntax_err.any.js.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from '../../glue/index.js';

const isType = (e) =>
  e instanceof TypeError && e.name === 'TypeError' && !(e instanceof DOMException);
const isDOM = (name, code) => (e) =>
  e instanceof DOMException && e.name === name && (code === undefined || e.code === code);
const throwsType = (fn, msg) => assert.throws(fn, isType, msg);
const throwsSyntax = (fn, msg) => assert.throws(fn, isDOM('SyntaxError', 12), msg);
const throwsClone = (fn, msg) => assert.throws(fn, isDOM('DataCloneError', 25), msg);

beforeEach(() => {
  performance.clearMarks();
  performance.clearMeasures();
  performance.mark('a', { startTime: 10 });
  performance.mark('b', { startTime: 20 });
});

function nothingBuffered() {
  assert.deepEqual(
    performance.getEntriesByType('measure'),
    [],
    'a failed measure() buffers nothing',
  );
}

test('measure without a name throws TypeError', () => {
  throwsType(() => performance.measure());
  nothingBuffered();
});

test('measure with a Symbol name throws TypeError', () => {
  throwsType(() => performance.measure(Symbol('m')));
  throwsType(() => performance.measure('m', Symbol('start')));
  throwsType(() => performance.measure('m', 'a', Symbol('end')));
  throwsType(() => performance.measure('m', { start: Symbol('s') }));
  throwsType(() => performance.measure('m', { end: Symbol('e') }));
  nothingBuffered();
});

test('measure with an unknown start mark throws a SyntaxError DOMException', () => {
  throwsSyntax(() => performance.measure('m', 'nope'));
  throwsSyntax(() => performance.measure('m', 'nope', 'b'));
  throwsSyntax(() => performance.measure('m', { start: 'nope' }));
  throwsSyntax(() => performance.measure('m', { start: 'nope', end: 5 }));
  throwsSyntax(() => performance.measure('m', { start: 'nope', duration: 5 }));
  nothingBuffered();
});

test('measure with an unknown end mark throws a SyntaxError DOMException', () => {
  throwsSyntax(() => performance.measure('m', 'a', 'nope'));
  throwsSyntax(() => performance.measure('m', undefined, 'nope'));
  throwsSyntax(() => performance.measure('m', { end: 'nope' }));
  throwsSyntax(() => performance.measure('m', { start: 1, end: 'nope' }));
  throwsSyntax(() => performance.measure('m', { duration: 1, end: 'nope' }));
  nothingBuffered();
});

test('measure with a mark name that is only a measure name throws SyntaxError', () => {
  performance.measure('onlyMeasure', { start: 1, end: 2 });
  throwsSyntax(() => performance.measure('m', 'onlyMeasure'));
});

test('measure with a mark name differing only in case throws SyntaxError', () => {
  throwsSyntax(() => performance.measure('m', 'A'));
});

test('measure with endMark and non-empty options throws TypeError', () => {
  throwsType(() => performance.measure('m', { start: 'a' }, 'b'));
  throwsType(() => performance.measure('m', { end: 'b' }, 'b'));
  throwsType(() => performance.measure('m', { duration: 1 }, 'b'));
  throwsType(() => performance.measure('m', { detail: 1 }, 'b'));
  throwsType(() => performance.measure('m', { detail: null }, 'b'));
  nothingBuffered();
});

test('measure with non-empty options without start or end throws TypeError', () => {
  throwsType(() => performance.measure('m', { detail: { x: 1 } }), '{detail} only');
  throwsType(
    () => performance.measure('m', { detail: null }),
    '{detail: null} is a present member',
  );
  throwsType(() => performance.measure('m', { duration: 1 }), '{duration} only');
  throwsType(() => performance.measure('m', { duration: 1, detail: 'x' }), '{duration, detail}');
  nothingBuffered();
});

test('measure with start, duration and end throws TypeError', () => {
  throwsType(() => performance.measure('m', { start: 1, duration: 1, end: 2 }));
  throwsType(() => performance.measure('m', { start: 'a', duration: 1, end: 'b' }));
  throwsType(
    () => performance.measure('m', { start: 0, duration: 0, end: 0 }),
    'zeros are present members',
  );
  nothingBuffered();
});

test('measure with a negative start, end or duration throws TypeError', () => {
  throwsType(() => performance.measure('m', { start: -1 }), 'start');
  throwsType(() => performance.measure('m', { start: -1, end: 5 }), 'start with end');
  throwsType(() => performance.measure('m', { end: -1 }), 'end');
  throwsType(() => performance.measure('m', { start: 1, end: -1 }), 'end with start');
  throwsType(() => performance.measure('m', { start: 1, duration: -1 }), 'duration with start');
  throwsType(() => performance.measure('m', { duration: -1, end: 5 }), 'duration with end');
  throwsType(() => performance.measure('m', { start: -1, duration: 1 }), 'start with duration');
  nothingBuffered();
});

test('measure with a non-finite start, end or duration throws TypeError', () => {
  for (const v of [NaN, Infinity, -Infinity]) {
    throwsType(() => performance.measure('m', { start: v }));
    throwsType(() => performance.measure('m', { end: v }));
    throwsType(() => performance.measure('m', { start: 0, duration: v }));
  }
  nothingBuffered();
});

test('measure with a function or symbol detail throws a DataCloneError DOMException', () => {
  throwsClone(() => performance.measure('m', { start: 0, detail: () => {} }));
  throwsClone(() => performance.measure('m', { end: 1, detail: { f() {} } }));
  throwsClone(() => performance.measure('m', { start: 'a', end: 'b', detail: Symbol('s') }));
  nothingBuffered();
});

test('measure with PerformanceTiming names throws TypeError in Node (not a Window)', () => {
  throwsType(() => performance.measure('m', 'navigationStart'));
  throwsType(() => performance.measure('m', 'a', 'loadEventEnd'));
  throwsType(() => performance.measure('m', undefined, 'navigationStart'));
  throwsType(() => performance.measure('m', { start: 'navigationStart' }));
  throwsType(() => performance.measure('m', { end: 'domComplete' }));
  throwsType(() => performance.measure('m', { start: 'fetchStart', duration: 1 }));
  nothingBuffered();
});

// Which exception wins.

test('order: argument conversion (non-finite duration) before the SyntaxError of an unknown start', () => {
  throwsType(() => performance.measure('m', { start: 'nope', duration: NaN }));
});

test('order: endMark conversion (Symbol) before the SyntaxError of an unknown start', () => {
  throwsType(() => performance.measure('m', 'nope', Symbol('e')));
});

test('order: step 1 endMark check before unknown marks', () => {
  throwsType(() => performance.measure('m', { start: 'nope' }, 'nope2'));
  throwsType(() => performance.measure('m', { start: 'a' }, 'nope'));
});

test('order: step 1 checks before the detail clone', () => {
  throwsType(
    () => performance.measure('m', { detail: () => {} }),
    '{detail: fn} alone is the no-range TypeError',
  );
  throwsType(
    () => performance.measure('m', { detail: () => {} }, 'a'),
    'endMark with {detail: fn}',
  );
  throwsType(() => performance.measure('m', { start: 1, duration: 1, end: 2, detail: () => {} }));
});

test('order: step 1 over-specification before negative values and unknown marks', () => {
  throwsType(() => performance.measure('m', { start: 'nope', duration: 1, end: 'nope' }));
});

test('order: end is converted before start', () => {
  // {start: unknown, end: negative}: end's TypeError, not start's SyntaxError.
  throwsType(() => performance.measure('m', { start: 'nope', end: -1 }));
  // {start: negative, end: unknown}: end's SyntaxError, not start's TypeError.
  throwsSyntax(() => performance.measure('m', { start: -1, end: 'nope' }));
  // Positional: endMark unknown wins over the unknown start mark, both SyntaxError; and
  // a PerformanceTiming endMark (TypeError) wins over an unknown start mark (SyntaxError).
  throwsType(() => performance.measure('m', 'nope', 'navigationStart'));
  throwsSyntax(() => performance.measure('m', 'navigationStart', 'nope'));
});

test('order: with {start, duration}, start is converted before duration', () => {
  throwsSyntax(() => performance.measure('m', { start: 'nope', duration: -1 }));
  throwsType(() => performance.measure('m', { start: -1, duration: -1 }));
});

test('order: with {duration, end}, end is converted before duration', () => {
  throwsSyntax(() => performance.measure('m', { duration: -1, end: 'nope' }));
  throwsType(() => performance.measure('m', { duration: -1, end: 'b' }));
});

test('order: unknown marks before the detail clone', () => {
  throwsSyntax(() => performance.measure('m', { start: 'nope', detail: () => {} }));
  throwsSyntax(() => performance.measure('m', { end: 'nope', detail: Symbol('s') }));
  throwsType(() => performance.measure('m', { start: -1, detail: () => {} }));
});

test('order: mark names are looked up after every argument is converted', () => {
  // WebIDL converts the whole dictionary (and endMark) before measure()'s steps run, so a mark
  // created by a getter or toString() during conversion is found by the lookup.
  const options = {
    end: 'made-during-conversion',
    get start() {
      performance.mark('made-during-conversion', { startTime: 50 });
      return 10;
    },
  };
  const m = performance.measure('m', options);
  assert.deepEqual([m.startTime, m.duration], [10, 40]);
  const endMark = {
    toString() {
      performance.mark('made-by-toString', { startTime: 70 });
      return 'made-by-toString';
    },
  };
  const n = performance.measure('n', 'made-by-toString', endMark);
  assert.deepEqual([n.startTime, n.duration], [70, 0]);
});

test('a failed measure runs no observer and leaves the buffer untouched', async () => {
  const { PerformanceObserver } = await import('../../glue/index.js');
  const seen = [];
  const po = new PerformanceObserver((list) => seen.push(...list.getEntries()));
  po.observe({ type: 'measure' });
  try {
    assert.throws(() => performance.measure('m', 'nope'));
    assert.throws(() => performance.measure('m', { start: 0, detail: () => {} }));
    // After an immediate queued after the timer: an observer task (an immediate) queued by the
    // failed calls would have run, whatever the timer's turn.
    await new Promise((r) => setTimeout(() => setImmediate(r), 20));
    assert.deepEqual(seen, []);
    assert.deepEqual(po.takeRecords(), []);
    nothingBuffered();
  } finally {
    po.disconnect();
  }
});
