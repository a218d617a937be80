// traceMeasures(): measures become OpenTelemetry spans (name, epoch start/end, detail as
// attributes, the caller's active span as parent, across awaits) and marks events on the active
// span; checked with the SDK's in-memory exporter and with an OTLP/HTTP export to a local
// receiver that decodes the JSON it gets; stop() ends it; bad options are TypeErrors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { context } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  InMemorySpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { traceMeasures, epochHrTime, flattenDetail } from '../../glue/node/opentelemetry.js';
import { performance } from '../../glue/index.js';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const memory = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
const tracer = provider.getTracer('test');
const hrMs = ([s, ns]) => s * 1000 + ns / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('epochHrTime splits timeOrigin + startTime into exact seconds and nanoseconds', () => {
  assert.deepEqual(epochHrTime(1_700_000_000_123.5, 0), [1_700_000_000, 123_500_000]);
  assert.deepEqual(epochHrTime(1_700_000_000_999, 1.000001), [1_700_000_001, 1]);
  assert.deepEqual(epochHrTime(1000, 2500.25), [3, 500_250_000]);
});

test('flattenDetail: dotted keys, primitives and homogeneous arrays kept, the rest as text', () => {
  assert.deepEqual(flattenDetail(null), {});
  assert.deepEqual(flattenDetail('x'), { detail: 'x' });
  assert.deepEqual(
    flattenDetail({
      db: { rows: 3, table: 'users', cached: false },
      tags: ['a', 'b'],
      mixed: [1, 'a'],
      n: null,
      big: 5n,
      at: new Date(0),
    }),
    {
      'db.rows': 3,
      'db.table': 'users',
      'db.cached': false,
      tags: ['a', 'b'],
      mixed: '[1,"a"]',
      big: '5',
      at: '1970-01-01T00:00:00.000Z',
    },
  );
  const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
  assert.equal(Object.keys(flattenDetail(many)).length, 128);
});

test('a measure becomes a span: name, epoch times, attributes, the active span as parent', async () => {
  memory.reset();
  const stop = traceMeasures({ tracer });
  try {
    await tracer.startActiveSpan('request', async (parent) => {
      const t0 = performance.now();
      await sleep(10); // across an await: the context manager keeps the parent active
      const m = performance.measure('db.query', {
        start: t0,
        detail: { db: { rows: 2 }, sql: 'SELECT 1' },
      });
      performance.mark('cache-miss', { detail: { key: 'u:1' } });
      parent.end();
      const spans = memory.getFinishedSpans();
      const span = spans.find((s) => s.name === 'db.query');
      assert.ok(span, "the measure's span was exported");
      assert.equal(span.parentSpanContext.spanId, parent.spanContext().spanId);
      assert.equal(span.spanContext().traceId, parent.spanContext().traceId);
      assert.ok(Math.abs(hrMs(span.startTime) - (performance.timeOrigin + m.startTime)) < 0.001);
      assert.ok(
        Math.abs(hrMs(span.endTime) - (performance.timeOrigin + m.startTime + m.duration)) < 0.001,
      );
      assert.deepEqual(span.attributes, { 'db.rows': 2, sql: 'SELECT 1' });
      const p = spans.find((s) => s.name === 'request');
      assert.deepEqual(
        p.events.map((e) => [e.name, e.attributes]),
        [['cache-miss', { key: 'u:1' }]],
      );
    });
  } finally {
    stop();
  }
});

test('concurrent tasks get their own parents; stop() ends the tracing', async () => {
  memory.reset();
  const stop = traceMeasures({ tracer, prefix: 'job:' });
  const parents = new Map();
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      tracer.startActiveSpan(`task-${i}`, async (span) => {
        parents.set(i, span.spanContext().spanId);
        const t = performance.now();
        await sleep(Math.random() * 10);
        performance.measure(`job:${i}`, { start: t });
        performance.measure(`other:${i}`, { start: t }); // not traced: prefix
        span.end();
      }),
    ),
  );
  stop();
  performance.measure('job:after-stop', { start: 0, duration: 1 });
  const jobs = memory.getFinishedSpans().filter((s) => s.name.startsWith('job:'));
  assert.equal(jobs.length, 10);
  for (const s of jobs)
    assert.equal(s.parentSpanContext.spanId, parents.get(Number(s.name.slice(4))));
  assert.equal(memory.getFinishedSpans().filter((s) => s.name.startsWith('other:')).length, 0);
  performance.clearMeasures();
  performance.clearMarks();
});

test('a negative duration spans [end, start]; a throwing filter never breaks measure()', async () => {
  memory.reset();
  const reported = [];
  const onError = (e) => reported.push(e);
  const listeners = process.listeners('uncaughtException'); // the test runner's, put back below
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', onError);
  const stop = traceMeasures({
    tracer,
    filter: (e) => {
      if (e.name === 'bad') throw new Error('boom');
      return true;
    },
  });
  try {
    performance.measure('back', { start: 20, end: 5 });
    const m = performance.measure('bad', { start: 0, duration: 1 });
    assert.equal(m.name, 'bad', 'measure() returned normally');
    await sleep(5);
  } finally {
    stop();
    process.off('uncaughtException', onError);
    for (const l of listeners) process.on('uncaughtException', l);
  }
  const s = memory.getFinishedSpans().find((x) => x.name === 'back');
  assert.ok(Math.abs(hrMs(s.startTime) - (performance.timeOrigin + 5)) < 0.001);
  assert.ok(Math.abs(hrMs(s.endTime) - (performance.timeOrigin + 20)) < 0.001);
  assert.deepEqual(reported, [], 'nothing thrown into the program (a process warning instead)');
  performance.clearMeasures();
});

test('OTLP/HTTP: a local receiver decodes the spans the exporter sends', async () => {
  const received = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ path: req.url, type: req.headers['content-type'], body: JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const exporter = new OTLPTraceExporter({
    url: `http://127.0.0.1:${server.address().port}/v1/traces`,
  });
  const otlp = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const stop = traceMeasures({ tracer: otlp.getTracer('perfshim-test') });
  let m;
  try {
    m = performance.measure('export-me', {
      start: 1.25,
      duration: 3.5,
      detail: { user: { id: 7 } },
    });
    await otlp.forceFlush();
  } finally {
    stop();
    await otlp.shutdown();
    await new Promise((r) => server.close(r));
  }
  assert.equal(received.length, 1);
  assert.equal(received[0].path, '/v1/traces');
  assert.match(received[0].type, /application\/json/);
  const spans = received[0].body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  assert.equal(spans.length, 1);
  const [span] = spans;
  assert.equal(span.name, 'export-me');
  const nano = (v) => BigInt(typeof v === 'object' ? `${v.high * 2 ** 32 + (v.low >>> 0)}` : v);
  const start = nano(span.startTimeUnixNano),
    end = nano(span.endTimeUnixNano);
  const expected =
    BigInt(epochHrTime(performance.timeOrigin, m.startTime)[0]) * 1_000_000_000n +
    BigInt(epochHrTime(performance.timeOrigin, m.startTime)[1]);
  assert.equal(start, expected);
  assert.equal(end - start, 3_500_000n);
  assert.deepEqual(span.attributes, [{ key: 'user.id', value: { intValue: 7 } }]);
  performance.clearMeasures();
});

test('a tracer that measures while recording a span is not traced again (no recursion)', () => {
  const names = [];
  const measuringTracer = {
    startSpan(name) {
      names.push(name);
      performance.measure('inside-the-tracer', { start: 0, duration: 1 });
      return { end() {} };
    },
  };
  const stop = traceMeasures({ tracer: measuringTracer });
  try {
    performance.measure('outer', { start: 0, duration: 1 });
  } finally {
    stop();
  }
  assert.deepEqual(names, ['outer']);
  performance.clearMeasures();
});

test('bad options are TypeErrors', () => {
  assert.throws(() => traceMeasures(null), { name: 'TypeError' });
  assert.throws(() => traceMeasures({ tracer: {} }), { name: 'TypeError', message: /tracer/ });
  assert.throws(() => traceMeasures({ prefix: 1 }), { name: 'TypeError', message: /prefix/ });
  assert.throws(() => traceMeasures({ filter: 1 }), { name: 'TypeError', message: /filter/ });
  assert.throws(() => traceMeasures({ timeOrigin: 'x' }), {
    name: 'TypeError',
    message: /timeOrigin/,
  });
});
