// performance.measureUserAgentSpecificMemory() (and its older name measureMemory()): a source
// measures (glue/memory/measure-memory-node.js, glue/memory/measure-memory-browser.js) and hands the core an
// intermediate measurement; the core builds the spec's MemoryMeasurement (src/memory.c), which
// is parsed here. The promise resolves in a task queued after the measurement, as the spec's
// "queue a global task … to resolve promise" says; concurrent calls measure independently.
// The result is built in a small core of its own (wasm/perfshim-memory.wasm: src/memory.c and
// its JSON reader and writer), so that this module and that core can be loaded on first use
// (glue/index.js); the source measures with the realm's core (its memory is counted).
import { wasmBytes } from '../../wasm/perfshim-memory.wasm.js';
import { loadCore, instantiateCore, coreBytes } from '../host/loader.js';
import { statusError, failed } from '../host/errors.js';
import { PS_OK, PS_E_PARSE } from '../host/abi.js';
import { queueTask, runtime } from '../host/host.js';
import { isNode } from '../host/native.js';
import { measureNode } from './measure-memory-node.js';
import { measureBunDeno } from './measure-memory-bun-deno.js';
import { measureBrowser } from './measure-memory-browser.js';

const OP = 'measureUserAgentSpecificMemory';

/** The shuffle's seed: the orders are randomized so that pages do not depend on them, which
 *  needs no cryptographic randomness. */
const randomSeed = () => (Math.random() * 0x100000000) >>> 0;

/** A new Measure Memory core. In Node, PERFSHIM_MEMORY_WASM=path selects another build (the
 *  suites run on the debug build this way). */
export const createMemoryCore = () => instantiateCore(coreBytes('PERFSHIM_MEMORY_WASM', wasmBytes));

let memoryCore;
/** The realm's Measure Memory core, instantiated on first use. */
export const loadMemoryCore = () => (memoryCore ||= createMemoryCore());

/** Create a new memory measurement (in a Measure Memory core) from an intermediate measurement
 *  object. */
export function buildMeasurement(core, intermediate, seed = randomSeed()) {
  const len = core.putString(JSON.stringify(intermediate));
  const status = core.x.ps_memory_build(len, seed >>> 0);
  let text = core.takeString(); // the result, or what went wrong
  if (status === PS_E_PARSE) text = `the memory source produced an invalid measurement (${text})`;
  if (status !== PS_OK) throw statusError(status, failed(OP, 'Performance'), text);
  return JSON.parse(text);
}

/** The source for this host: Bun's or Deno's (imported on first use), Node's inspector-based
 *  source, or the browser's. */
const hostSource =
  runtime === 'bun' || runtime === 'deno' ? measureBunDeno : isNode ? measureNode : measureBrowser;

/**
 * Returns measureUserAgentSpecificMemory(). Options: `source(core)` returns (a promise of) an
 * intermediate measurement (default: this host's); `brand(thisValue)` returns false when `this`
 * is not a Performance object (the promise then rejects with TypeError "Illegal invocation", as
 * WebIDL turns exceptions of promise-returning operations into rejections).
 */
export function createMeasureMemory(core, { source = hostSource, brand } = {}) {
  return function measureUserAgentSpecificMemory() {
    return new Promise((resolve, reject) => {
      if (brand && !brand(this))
        throw new TypeError(`${failed(OP, 'Performance')}: Illegal invocation`);
      // The source's exceptions and rejections, and the core's, alike reject; either way the
      // promise settles in a task queued after the measurement.
      new Promise((measured) => measured(source(core)))
        .then((intermediate) => buildMeasurement(loadMemoryCore(), intermediate))
        .then(
          (m) => queueTask(() => resolve(m)),
          (e) => queueTask(() => reject(e)),
        );
    });
  };
}

let cached;
/** The realm's measureUserAgentSpecificMemory on the shared core (the same function serves as
 *  measureMemory, the name of the older draft). */
export function measureUserAgentSpecificMemory() {
  if (!cached) cached = createMeasureMemory(loadCore());
  return cached.call(this);
}
export function measureMemory() {
  return measureUserAgentSpecificMemory.call(this);
}
