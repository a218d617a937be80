// The loader: compiles the embedded core synchronously (no fetch, no await) and wraps its
// exports with the exchange-buffer helpers every glue module uses. One cached instantiation;
// `createCore(bytes)` lets a test hand in another build.
import { wasmBase64 } from '../wasm/perfshim.wasm.js';

function decodeBase64(b64) {
  if (typeof Buffer === 'function' && typeof Buffer.from === 'function') {
    const b = Buffer.from(b64, 'base64');
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

let decoder;

/** Instantiate a core from wasm bytes and return its exports plus buffer helpers. */
export function createCore(bytes = decodeBase64(wasmBase64)) {
  const module = new WebAssembly.Module(bytes);
  const imports = {
    env: { emscripten_notify_memory_growth() { core.grown++; } },
    wasi_snapshot_preview1: {
      proc_exit(code) { throw new Error(`perfshim core exited with ${code}`); },
      fd_write() { return 52; /* ENOSYS: the core does not print */ },
      fd_close() { return 52; },
      fd_seek() { return 52; },
    },
  };
  const instance = new WebAssembly.Instance(module, imports);
  const x = instance.exports;
  if (typeof x._initialize === 'function') x._initialize();
  let outView = new Float64Array(0);
  let u32View = new Uint32Array(0);
  const core = {
    module,
    x,
    grown: 0,
    memory: x.memory,
    /** Write a string into the exchange buffer as WTF-8 (UTF-8 that keeps lone surrogates
     *  distinct, since DOMString names compare by code units); returns its byte length. */
    putString(s) {
      const n = s.length;
      const ptr = x.ps_exchange_reserve(n * 3 || 1);
      if (!ptr) throw new RangeError('perfshim: out of memory');
      const b = new Uint8Array(x.memory.buffer, ptr, n * 3);
      let j = 0;
      for (let i = 0; i < n; i++) {
        let c = s.charCodeAt(i);
        if (c < 0x80) { b[j++] = c; continue; }
        if (c < 0x800) { b[j++] = 0xc0 | (c >> 6); b[j++] = 0x80 | (c & 63); continue; }
        if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
          const d = s.charCodeAt(i + 1);
          if (d >= 0xdc00 && d < 0xe000) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            i++;
            b[j++] = 0xf0 | (c >> 18); b[j++] = 0x80 | ((c >> 12) & 63);
            b[j++] = 0x80 | ((c >> 6) & 63); b[j++] = 0x80 | (c & 63);
            continue;
          }
        }
        b[j++] = 0xe0 | (c >> 12); b[j++] = 0x80 | ((c >> 6) & 63); b[j++] = 0x80 | (c & 63);
      }
      return j;
    },
    /** The f64 output registers (a cached view, re-derived after memory grows). */
    out() {
      if (outView.length === 0) outView = new Float64Array(x.memory.buffer, x.ps_out_ptr(), 8);
      return outView;
    },
    /** A fresh view of `n` u32 results of the last query (views die when memory grows). */
    results(n) { return new Uint32Array(x.memory.buffer, x.ps_result_ptr(), n); },
    /** The whole memory as u32 (a cached view, re-derived after memory grows): hot paths read
     *  results at ps_result_ptr() >> 2 without allocating a view per call. */
    u32() {
      if (u32View.length === 0) u32View = new Uint32Array(x.memory.buffer);
      return u32View;
    },
    /** Read `len` UTF-8 bytes at `ptr`. */
    getString(ptr, len) {
      return (decoder || (decoder = new TextDecoder())).decode(new Uint8Array(x.memory.buffer, ptr, len));
    },
  };
  return core;
}

let cached;
/** The shared core of this realm. In Node, PERFSHIM_WASM=path selects another build of the core
 *  (the test suites run on the debug build this way). */
export function loadCore() {
  if (!cached) {
    const proc = globalThis.process;
    const path = proc && proc.env && proc.env.PERFSHIM_WASM;
    const fs = path && typeof proc.getBuiltinModule === 'function' ? proc.getBuiltinModule('fs') : null;
    cached = fs ? createCore(new Uint8Array(fs.readFileSync(path))) : createCore();
  }
  return cached;
}

/** A core that is instantiated on first use: importing and installing perfshim then costs no
 *  WebAssembly compilation (V8 starts its wasm engine on the first module, ~2 ms in Node); the
 *  first call that needs the core pays it. Same interface as createCore()'s result. */
export function lazyCore(make = loadCore) {
  const lazy = {};
  const materialize = () => {
    const core = make();
    for (const key of Object.keys(core)) {
      Object.defineProperty(lazy, key, { value: core[key], writable: true, configurable: true, enumerable: true });
    }
    return core;
  };
  for (const key of ['module', 'x', 'memory', 'grown', 'putString', 'results', 'u32', 'out', 'getString']) {
    Object.defineProperty(lazy, key, {
      configurable: true,
      enumerable: true,
      get() { return materialize()[key]; },
    });
  }
  return lazy;
}
