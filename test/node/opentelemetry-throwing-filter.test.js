// traceMeasures() with a `filter` that throws: the measure gets no span, the error is reported
// once as a process warning, and nothing is thrown into the program (before, the error went to
// reportException, which rethrew it on nextTick and ended the process).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('../../glue/node/opentelemetry.js', import.meta.url));
const INDEX = fileURLToPath(new URL('../../glue/index.js', import.meta.url));

test('a throwing filter: no span for that measure, one warning, the process goes on', () => {
  const src = `
    import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
    const { traceMeasures } = await import(${JSON.stringify(MODULE)});
    const { performance } = await import(${JSON.stringify(INDEX)});
    const warnings = [];
    process.on('warning', (w) => warnings.push(w.message));
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
    const stop = traceMeasures({ tracer: provider.getTracer('t'), filter: (e) => {
      if (e.name.startsWith('bad')) throw new RangeError('filter failed');
      return true;
    } });
    performance.measure('bad-1', { start: 0, duration: 1 });
    performance.measure('good', { start: 0, duration: 1 });
    performance.measure('bad-2', { start: 0, duration: 1 });
    await new Promise((r) => setTimeout(r, 20));
    stop();
    console.log(JSON.stringify({ spans: memory.getFinishedSpans().map((s) => s.name), warnings }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', src], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
  });
  const r = JSON.parse(out);
  assert.deepEqual(r.spans, ['good']);
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /traceMeasures: options\.filter threw.*RangeError: filter failed/s);
});
