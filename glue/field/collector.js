// The field collector: a `(req, res, next)` handler for node:http, Express, Connect and Fastify
// (through @fastify/middie) that takes visits' uploads (visits.js), validates each in the field
// core, merges it into the aggregate of its time window × label set (the samples inside the
// visit's measures labelled with their names: measured.js), and writes one pprof file
// per aggregate under `out` (and pushes it to Pyroscope's ingest API with `push`) when its
// window closes, at flush() and at close().
//
// Every upload is hostile: the body is capped before decompression (`maxBytes`, 413), gzip is
// inflated with a maxOutputLength (a bomb is a 413, never memory), a body that is too slow is a
// 408, then the core validates every byte (400 with the reason). Distinct label sets per window
// are capped (`maxLabelSets`, 429) and stacks per aggregate (`maxStacks`, "(other)" past it), so
// nothing a client sends grows the collector without bound. Refusals are counted by reason.
// CORS: the beacon is a simple request (text/plain), so an Access-Control-Allow-Origin answer is
// all it needs; an OPTIONS preflight is answered too, for clients that send one.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PS_FIELD_MAX_BYTES } from '../host/abi.js';
import { createField } from './core.js';
import { createMeasuredAggregate } from './measured.js';
import { aggregateToPprof } from './pprof.js';

const GZIP = (b) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

/** The label set as a key and as a path segment (sorted `k=v` pairs, percent-encoded; long
 *  ones shortened with a hash so a file name stays under 255 bytes). */
function labelKey(labels) {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${encodeURIComponent(labels[k])}`);
  const key = pairs.join(',') || '_';
  const path =
    key.length <= 180
      ? key
      : `${key.slice(0, 150)}~${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  return { key, path };
}

/** The series name Pyroscope's /ingest takes: app{k=v,...}, characters the name's syntax
 *  reserves replaced in values. */
export function pyroscopeName(app, labels) {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${String(labels[k]).replace(/[,{}=\s"]/g, '_')}`);
  return `${app}{${pairs.join(',')}}`;
}

/** POST one gzipped pprof to Pyroscope's ingest API (`base`: the server's URL): query name,
 *  from, until (Unix seconds), format=pprof, sampleRate (Hz), spyName; the body multipart with
 *  the profile in the field `profile`, as Pyroscope's own Node client sends it. */
export async function pushToPyroscope(base, { app, labels, fromMs, untilMs, periodMs, bytes }) {
  const url = new URL('ingest', base.endsWith('/') ? base : `${base}/`);
  url.searchParams.set('name', pyroscopeName(app, labels));
  url.searchParams.set('from', String(Math.floor(fromMs / 1000)));
  url.searchParams.set('until', String(Math.ceil(untilMs / 1000)));
  url.searchParams.set('format', 'pprof');
  url.searchParams.set('sampleRate', String(Math.round(1000 / (periodMs || 10))));
  url.searchParams.set('spyName', 'perfshim');
  const form = new FormData();
  form.append('profile', new Blob([bytes], { type: 'application/octet-stream' }), 'profile');
  const res = await fetch(url, { method: 'POST', body: form });
  if (!res.ok) throw new Error(`Pyroscope ingest answered ${res.status}: ${await res.text()}`);
}

/**
 * A collector. Options: `out` (directory for the pprof files; none: nothing written), `push`
 * (a Pyroscope server URL), `app` (its application name, 'perfshim'), `windowSeconds` (60),
 * `maxBytes` (65536, the body before decompression), `maxStacks` (100000 per aggregate),
 * `maxLabelSets` (1000 per window), `timeoutMs` (10000, a body's time to arrive), `path` (only
 * requests to it are handled; others go to next()), `symbolicate(trace)` (a function that
 * returns a trace with original positions, e.g. from createSymbolicator), `now()`, `field` (the
 * field operations, core.js createField(): a test or bench hands in another build).
 */
export function createCollector(options = {}) {
  const {
    out,
    push,
    app = 'perfshim',
    windowSeconds = 60,
    maxBytes = 65536,
    maxStacks = 100000,
    maxLabelSets = 1000,
    timeoutMs = 10000,
    path,
    symbolicate,
    now = Date.now,
    field = createField(),
    onError = (e) => process.emitWarning(`perfshim collect: ${e.message}`),
  } = options;
  const windowMs = windowSeconds * 1000;
  const aggregates = new Map(); // window start + label key -> {m, labels, path, start, period}
  const perWindow = new Map(); // window start -> label sets
  const stats = { accepted: 0, refused: 0, reasons: {}, written: [], pushed: 0, pushFailed: 0 };

  function refuse(res, status, reason) {
    stats.refused++;
    stats.reasons[reason] = (stats.reasons[reason] || 0) + 1;
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...cors });
    res.end(`${reason}\n`);
  }
  const cors = { 'access-control-allow-origin': '*' };

  /** Take one upload's bytes (compressed or not): the status and reason, or 204. */
  function ingest(body) {
    let bytes = body;
    if (GZIP(bytes)) {
      try {
        bytes = gunzipSync(bytes, { maxOutputLength: PS_FIELD_MAX_BYTES });
      } catch (e) {
        return e.code === 'ERR_BUFFER_TOO_LARGE'
          ? [413, 'upload too large after decompression']
          : [400, 'bad gzip'];
      }
    }
    let visit;
    try {
      visit = field.decode(bytes);
    } catch (e) {
      if (e.reason) return [400, `bad upload: ${e.reason}`];
      throw e;
    }
    try {
      let trace = visit.trace;
      if (symbolicate) {
        const mapped = symbolicate(field.codec.read(trace));
        const h = field.trace();
        field.codec.importTrace(h, mapped);
        field.free(trace);
        visit.trace = trace = h;
      }
      const start = Math.floor(now() / windowMs) * windowMs;
      const { key, path: labelPath } = labelKey(visit.labels);
      const id = `${start}\u0000${key}`;
      let a = aggregates.get(id);
      if (!a) {
        const sets = perWindow.get(start) || 0;
        if (sets >= maxLabelSets) return [429, 'too many label sets in this window'];
        perWindow.set(start, sets + 1);
        const m = createMeasuredAggregate(field, { maxStacks });
        a = { m, labels: visit.labels, path: labelPath, start };
        aggregates.set(id, a);
      }
      a.period = visit.interval || a.period || 10;
      a.m.add(trace, visit.interval, visit.entries);
    } finally {
      field.free(visit.trace);
    }
    stats.accepted++;
    return [204, ''];
  }

  /** The handler: POST bodies (to `path`, when given) are uploads; OPTIONS is answered. */
  function handler(req, res, next) {
    const url = req.url || '/';
    if (path && url.split('?')[0] !== path) return next ? next() : refuse(res, 404, 'not found');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...cors,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type',
        'access-control-max-age': '86400',
      });
      return res.end();
    }
    if (req.method !== 'POST') return refuse(res, 405, 'POST an upload');
    const declared = Number(req.headers['content-length']);
    if (declared > maxBytes) {
      refuse(res, 413, 'upload too large');
      return req.resume();
    }
    const chunks = [];
    let size = 0,
      done = false;
    const finish = (status, reason) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (status >= 400) refuse(res, status, reason);
      else {
        res.writeHead(status, cors);
        res.end();
      }
    };
    const timer = setTimeout(() => {
      finish(408, 'upload too slow');
      req.destroy();
    }, timeoutMs);
    req.on('data', (c) => {
      if (done) return;
      size += c.length;
      if (size > maxBytes) {
        finish(413, 'upload too large');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => finish(400, 'upload aborted'));
    req.on('end', () => {
      if (done) return;
      try {
        finish(...ingest(Buffer.concat(chunks)));
      } catch (e) {
        onError(e);
        finish(500, 'collector error');
      }
    });
  }

  /** Write (and push) the aggregates of windows that ended before `before` (ms; Infinity: all),
   *  and free them. Resolves with the files written. */
  async function flush(before = now()) {
    const written = [];
    const pushes = [];
    for (const [id, a] of aggregates) {
      if (a.start + windowMs > before && before !== Number.POSITIVE_INFINITY) continue;
      aggregates.delete(id);
      const read = a.m.read();
      a.m.free();
      perWindow.delete(a.start);
      if (!read.info.samples) continue;
      const bytes = aggregateToPprof(read, {
        labels: a.labels,
        startMs: a.start,
        durationMs: windowMs,
        periodMs: a.period,
      });
      if (out) {
        const dir = join(out, new Date(a.start).toISOString().replace(/:/g, '-'));
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `${a.path}.pb.gz`);
        writeFileSync(file, bytes);
        written.push(file);
        stats.written.push(file);
      }
      if (push) {
        const job = { app, labels: a.labels, fromMs: a.start, untilMs: a.start + windowMs };
        pushes.push(
          pushToPyroscope(push, { ...job, periodMs: a.period, bytes }).then(
            () => stats.pushed++,
            (e) => {
              stats.pushFailed++;
              onError(e);
            },
          ),
        );
      }
    }
    await Promise.all(pushes);
    return written;
  }

  return {
    handler,
    ingest,
    flush,
    /** The aggregates still held, read without being written or freed: [{labels, start, read}]
     *  (read: core.js read()'s shape with `measures`). */
    snapshot: () =>
      [...aggregates.values()].map((a) => ({ labels: a.labels, start: a.start, read: a.m.read() })),
    /** Everything still held, written and pushed. */
    close: () => flush(Number.POSITIVE_INFINITY),
    stats,
    field,
  };
}
