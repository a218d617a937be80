// OpenTelemetry: `traceMeasures(options)` turns every measure into a span and every mark into an
// event on the active span, through `@opentelemetry/api` (an optional peer dependency: whatever
// SDK and exporter the application registered receive them). Returns stop().
//
// Context: a synchronous listener on the queue step (queue-hook.js) runs inside
// performance.measure()/mark(), so the active context is the caller's: the active span becomes
// the measure span's parent (with the SDK's AsyncLocalStorage context manager, across awaits).
// Clock: a measure's startTime is on performance.now()'s clock; the span starts at
// timeOrigin + startTime (ms since the epoch), converted to [seconds, nanoseconds] without going
// through one large float. A negative duration (allowed by User Timing) spans [end, start].
// Attributes: `detail` flattened: nested plain objects become dotted keys (`{db: {rows: 3}}` ->
// `db.rows`), strings, numbers and booleans stay, arrays of one primitive type stay, anything
// else is its JSON (or String) text; at most MAX_ATTRIBUTES keys, MAX_DEPTH levels; an object met
// again (a cycle, or shared) is `[same as <key>]`, so flattening is linear in the detail's size.
import { guardedFilter, onQueued, performance } from './queue-hook.js';
import { api, apiError } from './opentelemetry-api.js';

const MAX_ATTRIBUTES = 128;
const MAX_DEPTH = 8;

/** ms since the epoch -> OpenTelemetry HrTime [seconds, nanoseconds], exact to the ns of each
 *  part (timeOrigin's whole seconds are split off before adding the small startTime). */
export function epochHrTime(timeOrigin, ms) {
  const originSec = Math.floor(timeOrigin / 1000);
  const rest = timeOrigin - originSec * 1000 + ms; // ms past originSec
  let sec = originSec + Math.floor(rest / 1000);
  let ns = Math.round((rest - Math.floor(rest / 1000) * 1000) * 1e6);
  if (ns >= 1e9) {
    sec += 1;
    ns -= 1e9;
  }
  return [sec, ns];
}

const isPrimitive = (v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const isPlain = (v) =>
  v !== null &&
  typeof v === 'object' &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

function text(v) {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
  if (typeof v === 'bigint') return String(v);
  const seen = new Set(); // each object written once: a cycle or a shared one is '[repeated]'
  try {
    const s = JSON.stringify(v, (_, x) => {
      if (x === null || typeof x !== 'object') return x;
      if (seen.has(x)) return '[repeated]';
      seen.add(x);
      return x;
    });
    if (s !== undefined) return s;
  } catch {
    /* not JSON (a BigInt inside, a throwing toJSON): fall through */
  }
  return String(v);
}

/** `detail` as OpenTelemetry attributes (see the file header). Each object is flattened once:
 *  met again (a cycle, or shared), it is the text `[same as <key>]`; the walk stops at the
 *  attribute cap. So the cost is linear in the detail's size, whatever its sharing. */
export function flattenDetail(detail) {
  const out = {};
  let n = 0;
  const seen = new Map(); // object -> the key it was flattened under
  const put = (key, value) => {
    out[key || 'detail'] = value;
    n++;
  };
  const walk = (v, key, depth) => {
    if (n >= MAX_ATTRIBUTES || v === null || v === undefined) return;
    if (isPrimitive(v)) {
      put(key, v);
      return;
    }
    if (seen.has(v)) {
      put(key, `[same as ${seen.get(v) || 'detail'}]`);
      return;
    }
    if (
      Array.isArray(v) &&
      v.length &&
      isPrimitive(v[0]) &&
      v.every((x) => typeof x === typeof v[0])
    ) {
      put(key, v.slice());
      return;
    }
    if (isPlain(v) && depth < MAX_DEPTH) {
      seen.set(v, key);
      for (const k of Object.keys(v)) {
        if (n >= MAX_ATTRIBUTES) return;
        walk(v[k], key ? `${key}.${k}` : k, depth + 1);
      }
      return;
    }
    if (typeof v === 'object') seen.set(v, key);
    put(key, text(v));
  };
  walk(detail, '', 0);
  return out;
}

/**
 * Start tracing measures (as spans) and marks (as events on the active span). Options: tracer
 * (default trace.getTracer('perfshim')), prefix / filter(entry) (which measures), marks
 * (default true), timeOrigin (default performance.timeOrigin). Returns stop().
 */
export function traceMeasures(options = {}) {
  if (!api) {
    throw new Error(
      `perfshim/opentelemetry needs the package @opentelemetry/api (npm install @opentelemetry/api): ${apiError && apiError.message}`,
    );
  }
  if (options === null || typeof options !== 'object')
    throw new TypeError('traceMeasures: options must be an object');
  const { prefix, filter, marks = true, timeOrigin = performance.timeOrigin } = options;
  if (prefix !== undefined && typeof prefix !== 'string')
    throw new TypeError('traceMeasures: options.prefix must be a string');
  if (filter !== undefined && typeof filter !== 'function')
    throw new TypeError('traceMeasures: options.filter must be a function');
  if (!Number.isFinite(timeOrigin))
    throw new TypeError(
      'traceMeasures: options.timeOrigin must be a finite number (ms since the epoch)',
    );
  const tracer = options.tracer === undefined ? api.trace.getTracer('perfshim') : options.tracer;
  if (tracer === null || typeof tracer !== 'object' || typeof tracer.startSpan !== 'function')
    throw new TypeError('traceMeasures: options.tracer must be an OpenTelemetry Tracer');
  const { trace, context, SpanKind } = api;
  const accepts =
    filter === undefined ? null : guardedFilter(filter, 'traceMeasures: options.filter');

  let inside = false; // a tracer or exporter that itself marks or measures is not traced again
  return onQueued(marks ? ['mark', 'measure'] : ['measure'], (entry) => {
    if (inside) return;
    inside = true;
    try {
      record(entry);
    } finally {
      inside = false;
    }
  });

  function record(entry) {
    if (entry.entryType === 'mark') {
      const span = trace.getActiveSpan();
      if (span)
        span.addEvent(
          entry.name,
          flattenDetail(entry.detail),
          epochHrTime(timeOrigin, entry.startTime),
        );
      return;
    }
    if (prefix !== undefined && !entry.name.startsWith(prefix)) return;
    if (accepts !== null && !accepts(entry)) return;
    const a = entry.startTime,
      b = entry.startTime + entry.duration;
    const span = tracer.startSpan(
      entry.name,
      {
        kind: SpanKind.INTERNAL,
        startTime: epochHrTime(timeOrigin, Math.min(a, b)),
        attributes: flattenDetail(entry.detail),
      },
      context.active(),
    );
    span.end(epochHrTime(timeOrigin, Math.max(a, b)));
  }
}
