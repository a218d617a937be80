// The loader: compiles the embedded core synchronously (no fetch, no await) and wraps its
// exports with the io layer (glue/host/io.js) every glue module uses. One cached instantiation;
// `createCore(bytes)` lets a test hand in another build. The wasm/*.wasm.js modules embed each
// core as a string of one character per byte (tools/embed-wasm.mjs); the classic scripts embed
// it as base64 (tools/build-dist.mjs: a page's parser scans that faster).
import { wasmBytes } from '../../wasm/perfshim.wasm.js';
import { createIo, withTransfers } from './io.js';

/** The bytes of an embedded module (`wasmBytes`: one character per byte, from \0asm on, or the
 *  same in base64). */
export function embeddedBytes(text) {
  const s = text.charCodeAt(0) === 0 ? text : atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

/** A core's bytes: in Node, the file the environment variable `env` names (the suites run on
 *  the debug builds this way; node:fs is reached synchronously from ESM and CommonJS alike),
 *  else the embedded module's. */
export function coreBytes(env, text) {
  const proc = globalThis.process;
  const path = proc && proc.env && proc.env[env];
  const fs = path && typeof proc.getBuiltinModule === 'function' && proc.getBuiltinModule('fs');
  return fs ? new Uint8Array(fs.readFileSync(path)) : embeddedBytes(text);
}

/** The full core (or, given its bytes, another build of it). */
export function createCore(bytes = embeddedBytes(wasmBytes)) {
  return instantiateCore(bytes);
}

/** Instantiate a module of the core (the full core, the Measure Memory core) from its bytes:
 *  its exports behind the io layer (glue/host/io.js), transfers included. (Not createCore: its
 *  default would pull the full core into the Measure Memory bundle.) */
export function instantiateCore(bytes) {
  return withTransfers(instantiateBare(bytes));
}

/** The same, without the string, list and blob transfers (the timeline glue's io). */
function instantiateBare(bytes) {
  const module = new WebAssembly.Module(bytes);
  // No imports: the core grows its memory itself (src/alloc.c) and has no entry point or stdio;
  // the io layer's views re-derive themselves after a growth.
  const x = new WebAssembly.Instance(module, {}).exports;
  if (typeof x._initialize === 'function') x._initialize();
  const core = createIo(x);
  core.module = module;
  return core;
}

let cached;
/** The shared core of this realm, its io without transfers until loadCore() adds them (the
 *  timeline-only entry uses this, so its bundle has no transfer code). In Node,
 *  PERFSHIM_WASM=path selects another build of the core (the suites run on the debug build). */
export function loadTimelineCore() {
  if (!cached) cached = instantiateBare(coreBytes('PERFSHIM_WASM', wasmBytes));
  return cached;
}

/** The shared core of this realm, with the io's transfers. */
export function loadCore() {
  return withTransfers(loadTimelineCore());
}

/** A core that is instantiated on first use: importing and installing perfshim then costs no
 *  WebAssembly compilation (V8 starts its wasm engine on the first module, ~2 ms in Node); the
 *  first use of any member pays it. Same interface as createCore()'s result: the first member
 *  read reaches the prototype, which copies the core's members onto the object, so every later
 *  read is an own data property. `make` makes the core: loadCore, or loadTimelineCore. */
export function lazyCore(make) {
  const lazy = Object.create(
    new Proxy(
      {},
      {
        get(_, key) {
          // Assigning through a Proxy without a set trap defines own data properties on `lazy`.
          const core = make();
          Object.assign(lazy, core);
          return core[key];
        },
      },
    ),
  );
  return lazy;
}
