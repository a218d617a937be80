// make test-node18's preload (node --import). On Node < 20.16 an ES module has no synchronous way
// to load a builtin, so glue/profiler/profiler-node.js loads node:inspector asynchronously and a Profiler
// can be constructed only after that (documented in docs/node-fleets.md). This preload waits for
// that load before a test file runs, as a program does by starting its profiler after an await.
import '../../glue/profiler/profiler-node.js';

await import('node:inspector');
await null;
