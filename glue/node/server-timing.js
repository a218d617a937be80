// Server-Timing for node:http servers: `serverTiming(options)` is a `(req, res, next)` middleware
// (node:http, Connect, Express, Fastify's middie) that collects the measures made while handling
// each request and writes them, plus `total`, as a `Server-Timing` response header just before
// the headers go out. Its `.fetch(handler)` wraps a fetch-style handler ((Request, ...) =>
// Response: Bun.serve, Deno.serve, Hono and the like) the same way: the header is added to the
// Response the handler resolves with (a copy of it when its headers are immutable, as a
// fetch() result's are), and the request's state ends there (a streaming body's later entries
// are neither in the header nor cleared).
//
// Scoping: the rest of the request runs inside an AsyncLocalStorage store (listeners added to the
// request too: its events come from the connection's context); a synchronous
// listener on the queue step (queue-hook.js) files each measure into the store of the code that
// made it, so concurrent requests never see each other's measures.
// Header: `name;dur=<ms>;desc="..."` per the Server-Timing grammar (W3C Server Timing §3):
// a metric name is an RFC 7230 token (other characters become `_`, the original name then goes
// in desc), desc is a quoted-string (`"` and `\` escaped; characters a header cannot carry are
// percent-encoded as UTF-8). Capped by maxEntries and maxHeaderLength; `total` always fits.
// Lifetime: a request's state ends when its response is over ('finish' or 'close') and its
// handler is done with it (it called res.end(), or the promise next() returned settled): a
// client that goes away early ends nothing under a handler still at work. A handler that never
// ends its response after its client left keeps its entries as long as it holds the request.
// Cleanup (clear: true): exactly the marks and measures the request made are removed when its
// state ends; same-named entries of start-up code, background work or other requests stay.
// A `filter` that throws leaves its measure out and is reported once as a process warning.
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { guardedFilter, onQueued, performance, realm } from './queue-hook.js';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NOT_TOKEN = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/g;

/** A metric name: the name itself when it is a token, else [token, the name for desc]. */
function metricName(name) {
  if (TOKEN.test(name)) return [name, null];
  const token = name.replace(NOT_TOKEN, '_') || '_';
  return [token, name];
}

/** A quoted-string (RFC 7230 §3.2.6): qdtext and quoted-pairs; what a header cannot carry
 *  (controls, DEL, non-ASCII) is percent-encoded as UTF-8. */
export function quoteString(s) {
  let out = '"';
  for (const ch of String(s)) {
    const c = ch.codePointAt(0);
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '%')
      out += '%25'; // the escape character itself, so that desc decodes back
    else if (c === 9 || (c >= 0x20 && c < 0x7f)) out += ch;
    else if (c >= 0xd800 && c <= 0xdfff)
      out += '%EF%BF%BD'; // a lone surrogate: U+FFFD
    else out += encodeURIComponent(ch);
  }
  return `${out}"`;
}

/** The methods that add a listener -> the method their wrapper is added with (a once-method's
 *  wrapper removes itself). */
const ADD = {
  on: 'on',
  addListener: 'addListener',
  prependListener: 'prependListener',
  once: 'on',
  prependOnceListener: 'prependListener',
};

/** Run the listeners later added to `emitter` (the request) in `resource`'s async context:
 *  its events come from the connection's parser, whose context is not the request's, so a body
 *  read with req.on('data'/'end') would otherwise lose the request's store. The response's
 *  events are not bound: they come after the header is sent (and binding costs ~5 µs of CPU a
 *  request). Each wrapper's `.listener` is the original, which is how EventEmitter matches
 *  removeListener(original); a once-listener is one wrapper that removes itself (Node's own
 *  once() would wrap ours again, and removeListener(original) would miss it). */
function bindListeners(resource, emitter) {
  const originals = {};
  for (const method in ADD) originals[method] = emitter[method];
  for (const method in ADD) {
    const original = originals[method],
      add = originals[ADD[method]],
      once = ADD[method] !== method;
    if (typeof original !== 'function' || typeof add !== 'function') continue;
    emitter[method] = function listenInRequestContext(event, listener) {
      if (typeof listener !== 'function') return original.call(this, event, listener);
      // runInAsyncScope rather than resource.bind(): bind() defines a deprecated property on
      // every function it returns, which cost ~7 % of a request's CPU time (measured).
      let fired = false;
      const bound = function inRequestContext(...args) {
        if (once) {
          this.removeListener(event, bound);
          if (fired) return undefined;
          fired = true;
        }
        return resource.runInAsyncScope(listener, this, ...args);
      };
      bound.listener = listener;
      return add.call(this, event, bound);
    };
  }
}

const round = (ms) => String(Math.round(ms * 1000) / 1000);

/** One Server-Timing metric for a measure: name;dur=ms[;desc="..."]. */
export function formatMetric(name, duration, description) {
  const [token, original] = metricName(String(name));
  let s = `${token};dur=${round(duration)}`;
  const desc = description !== undefined && description !== null ? String(description) : original;
  if (desc !== null && desc !== '') s += `;desc=${quoteString(desc)}`;
  return s;
}

function positiveInt(v, name, fallback) {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 0)
    throw new TypeError(`serverTiming: options.${name} must be a non-negative integer, got ${v}`);
  return v;
}

/**
 * options: prefix (only measures whose name starts with it), filter(entry) (only measures it
 * accepts), maxEntries (default 30), maxHeaderLength (default 2048 characters, `total`
 * included), clear (default true: remove the marks and measures the request made),
 * total (default 'total'; false for none). A measure's desc is `detail.description` when that
 * is a string.
 */
export function serverTiming(options = {}) {
  if (options === null || typeof options !== 'object')
    throw new TypeError('serverTiming: options must be an object');
  const { prefix, filter, clear = true, total = 'total' } = options;
  if (prefix !== undefined && typeof prefix !== 'string')
    throw new TypeError('serverTiming: options.prefix must be a string');
  if (filter !== undefined && typeof filter !== 'function')
    throw new TypeError('serverTiming: options.filter must be a function');
  if (total !== false && (typeof total !== 'string' || !TOKEN.test(total)))
    throw new TypeError('serverTiming: options.total must be a token (e.g. "total") or false');
  const maxEntries = positiveInt(options.maxEntries, 'maxEntries', 30);
  const maxHeaderLength = positiveInt(options.maxHeaderLength, 'maxHeaderLength', 2048);

  const als = new AsyncLocalStorage();
  const accepts =
    filter === undefined ? null : guardedFilter(filter, 'serverTiming: options.filter');

  onQueued(['mark', 'measure'], (entry) => {
    const req = als.getStore();
    if (req === undefined || req.done) return;
    if (clear) req.made.push(entry);
    if (entry.entryType === 'mark') return;
    if (prefix !== undefined && !entry.name.startsWith(prefix)) return;
    if (accepts !== null && !accepts(entry)) return;
    if (req.metrics.length < maxEntries) req.metrics.push(entry);
  });

  function header(req) {
    const tail = total === false ? '' : `${total};dur=${round(performance.now() - req.start)}`;
    let out = '';
    for (const e of req.metrics) {
      const d = e.detail;
      const m = formatMetric(
        e.name,
        e.duration,
        d && typeof d === 'object' && typeof d.description === 'string' ? d.description : undefined,
      );
      const next = out ? `${out}, ${m}` : m;
      if (next.length + (tail ? tail.length + 2 : 0) > maxHeaderLength) break;
      out = next;
    }
    if (tail && tail.length + (out ? out.length + 2 : 0) <= maxHeaderLength)
      out = out ? `${out}, ${tail}` : tail;
    return out;
  }

  /** The request's state ends once its response is over and its handler is done with it. */
  function finish(req) {
    if (req.done || !req.over || !req.handled) return;
    req.done = true;
    if (clear) realm.timeline.remove(req.made);
    req.made = null;
  }

  const begin = () => ({
    start: performance.now(),
    metrics: [],
    made: [], // the entries the request made (clear: true)
    over: false, // the response finished or its connection closed
    handled: false, // the handler ended the response, or its promise settled
    done: false,
  });

  const middleware = function serverTimingMiddleware(req, res, next) {
    const state = begin();
    const writeHead = res.writeHead;
    res.writeHead = function writeHeadWithServerTiming(...args) {
      res.writeHead = writeHead;
      if (!res.headersSent) {
        const value = header(state);
        if (value) {
          const prior = res.getHeader('Server-Timing');
          res.setHeader('Server-Timing', prior === undefined ? value : [].concat(prior, value));
        }
      }
      return writeHead.apply(this, args);
    };
    const handled = () => {
      state.handled = true;
      finish(state);
    };
    const end = res.end;
    res.end = function endAndFinish(...args) {
      res.end = end;
      try {
        return end.apply(this, args);
      } finally {
        handled();
      }
    };
    const over = () => {
      state.over = true;
      finish(state);
    };
    res.once('finish', over);
    res.once('close', over);
    const result = als.run(state, () => {
      bindListeners(new AsyncResource('perfshim.serverTiming'), req);
      return typeof next === 'function' ? next() : undefined;
    });
    if (result !== null && typeof result === 'object' && typeof result.then === 'function')
      result.then(handled, handled);
    return result;
  };

  /** A fetch-style handler: `handler`'s arguments and `this` passed on, its Response with the
   *  header. */
  middleware.fetch = function fetch(handler) {
    if (typeof handler !== 'function')
      throw new TypeError('serverTiming(...).fetch: the handler must be a function');
    // (a named first parameter: Deno.serve passes no Request to a handler of length 0)
    return async function serverTimingFetch(request, ...rest) {
      const state = begin();
      try {
        const response = await als.run(state, () => handler.call(this, request, ...rest));
        return withHeader(response, header(state));
      } finally {
        state.over = state.handled = true;
        finish(state);
      }
    };
  };
  return middleware;
}

/** `response` with a Server-Timing header `value` appended (after any the handler set); a copy
 *  when its headers cannot change. Anything but a Response is returned as it is. */
function withHeader(response, value) {
  if (!value || typeof Response !== 'function' || !(response instanceof Response)) return response;
  try {
    response.headers.append('Server-Timing', value);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.append('Server-Timing', value);
    const { status, statusText } = response;
    return new Response(response.body, { status, statusText, headers });
  }
}
