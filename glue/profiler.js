// The Profiler interface (JS Self-Profiling §The Profiler Interface). JS owns the object, its
// state and its events; the trace lives in the core (src/trace.c) from the first sample to the
// moment stop() hands it over as a plain ProfilerTrace. Samples come from the best source the
// host has (profiler-node.js: V8 through node:inspector; profiler-chromium.js: the native
// Profiler under the js-profiling document policy; instrument/source.js: code instrumented by
// perfshim's transform); elsewhere the constructor throws NotAllowedError, as the spec's policy
// check does, and says what would make it work.
import { loadCore } from './loader.js';
import { domException, failed, failedConstruct } from './errors.js';
import { dictionarySource, toDouble, toUnsignedLong } from './webidl.js';
import { nativeNow } from './host.js';
import { createTraceCodec } from './profiler-trace.js';
import { nodeSource } from './profiler-node.js';
import { chromiumSource, PERFSHIM_PROFILER } from './profiler-chromium.js';
import { instrumentSource } from './instrument/source.js';

/** The sample sources of this runtime, best first: the native Profiler where it is allowed, V8's
 *  sampler in Node, then the instrumentation source when this context's code was instrumented. */
export function defaultSources() {
  return [nodeSource, chromiumSource, instrumentSource].filter(Boolean);
}

/** The best sample source of this runtime (the first of defaultSources()). */
export function defaultSource() {
  return defaultSources()[0] || null;
}

const INSTRUMENT_HELP =
  'or instrument the scripts (`npx perfshim instrument in.js -o out.js`, or ' +
  "the bundler plugin from 'perfshim/instrument') so that the instrumentation source can sample them.";
const NOT_ALLOWED_HELP = {
  'chromium-native':
    'JS self-profiling is disabled by Document Policy. Serve the document with ' +
    `the response header 'Document-Policy: js-profiling' to allow it, ${INSTRUMENT_HELP}`,
  none:
    'JS self-profiling is not available in this context: perfshim samples through ' +
    'node:inspector in Node and through the native Profiler in Chromium (serve the document with ' +
    `'Document-Policy: js-profiling'), ${INSTRUMENT_HELP}`,
};

const illegal = () => new TypeError('Illegal invocation');
const required = (ctx, member) =>
  new TypeError(
    `${ctx}: Failed to read the '${member}' property from 'ProfilerInitOptions': Required member is undefined.`,
  );

/**
 * The Profiler class bound to a core (default: the realm's shared one) and a sample source
 * (default: this runtime's). Tests hand in another source to exercise the other paths.
 */
export function createProfilerClass(core = loadCore(), { source = defaultSources() } = {}) {
  const codec = createTraceCodec(core);
  const addListener = EventTarget.prototype.addEventListener;
  const removeListener = EventTarget.prototype.removeEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const dropped = new FinalizationRegistry(({ sampler, h }) => {
    sampler.close();
    codec.free(h);
  });

  class Profiler extends EventTarget {
    #sampleInterval = 0;
    #stopped = false;
    #trace = 0; // the core's trace handle while the session runs
    #sampler = null;
    #handler = null; // onsamplebufferfull
    #handlerListener = null;

    static #is(o) {
      return o !== null && typeof o === 'object' && #stopped in o;
    }

    // §new Profiler(options)
    constructor(options) {
      const ctx = failedConstruct('Profiler');
      if (arguments.length < 1)
        throw new TypeError(`${ctx}: 1 argument required, but only 0 present.`);
      // ProfilerInitOptions: members in lexicographic order, both required.
      const dict = dictionarySource(options, ctx, 'ProfilerInitOptions');
      const rawMax = dict === null ? undefined : dict.maxBufferSize;
      if (rawMax === undefined) throw required(ctx, 'maxBufferSize');
      const maxBufferSize = toUnsignedLong(rawMax);
      const rawInterval = dict === null ? undefined : dict.sampleInterval;
      if (rawInterval === undefined) throw required(ctx, 'sampleInterval');
      const sampleInterval = toDouble(
        rawInterval,
        `${ctx}: Failed to read the 'sampleInterval' property from 'ProfilerInitOptions'`,
      );
      // Step 1.
      if (sampleInterval < 0)
        throw new RangeError(
          `${ctx}: Invalid sample interval: sampleInterval must be non-negative.`,
        );
      // Step 2: the policy check; here, whether a source can profile this context at all. The
      // sources are tried best first; one that is not allowed here hands over to the next.
      const sources = (Array.isArray(source) ? source : [source]).filter(
        (s) => s && (!s.available || s.available()),
      );
      if (!sources.length)
        throw domException('NotAllowedError', `${ctx}: ${NOT_ALLOWED_HELP.none}`);
      super();
      // Step 3: a new profiling session in the started state, with an empty trace.
      const h = codec.create(maxBufferSize);
      // The sampler's timers hold the profiler only weakly: a profiler dropped while running is
      // collected, and the registry then stops its sampler and frees its trace.
      const ref = new WeakRef(this);
      for (let i = 0; !this.#sampler; i++) {
        const s = sources[i];
        const interval = s.supportedIntervalMs
          ? s.supportedIntervalMs(sampleInterval)
          : sampleInterval;
        try {
          this.#sampler = s.start(
            codec,
            h,
            interval,
            maxBufferSize,
            () => {
              const p = ref.deref();
              if (p) p.#bufferFull();
            },
            core,
          );
        } catch (e) {
          if (e && e.name === 'NotAllowedError' && i + 1 < sources.length) continue;
          codec.free(h);
          if (e && e.name === 'NotAllowedError') {
            throw domException(
              'NotAllowedError',
              `${ctx}: ${NOT_ALLOWED_HELP[s.name] || e.message || NOT_ALLOWED_HELP.none}`,
            );
          }
          throw e;
        }
      }
      this.#trace = h;
      this.#sampleInterval = this.#sampler.intervalMs;
      dropped.register(this, { sampler: this.#sampler, h }, this);
    }

    /** §take a sample, step 1: the buffer is full. The session is stopped; its trace can no
     *  longer be collected (stop() rejects), as the draft has it. */
    #bufferFull() {
      if (this.#stopped) return;
      this.#stopped = true;
      dropped.unregister(this);
      codec.free(this.#trace);
      this.#trace = 0;
      this.#sampler = null;
      dispatch.call(this, new Event('samplebufferfull'));
    }

    get sampleInterval() {
      if (!Profiler.#is(this)) throw illegal();
      return this.#sampleInterval;
    }

    get stopped() {
      if (!Profiler.#is(this)) throw illegal();
      return this.#stopped;
    }

    get onsamplebufferfull() {
      if (!Profiler.#is(this)) throw illegal();
      return this.#handler;
    }

    set onsamplebufferfull(v) {
      if (!Profiler.#is(this)) throw illegal();
      // EventHandler is [LegacyTreatNonObjectAsNull]: non-objects are null.
      const handler = v !== null && (typeof v === 'object' || typeof v === 'function') ? v : null;
      this.#handler = handler;
      if (handler === null) {
        if (this.#handlerListener)
          removeListener.call(this, 'samplebufferfull', this.#handlerListener);
        this.#handlerListener = null;
      } else if (!this.#handlerListener) {
        this.#handlerListener = (event) => {
          const fn = this.#handler;
          if (typeof fn === 'function') fn.call(this, event);
        };
        addListener.call(this, 'samplebufferfull', this.#handlerListener);
      }
    }

    // §stop() method
    stop() {
      if (!Profiler.#is(this)) return Promise.reject(illegal());
      if (this.#stopped) {
        return Promise.reject(
          domException(
            'InvalidStateError',
            `${failed('stop', 'Profiler')}: Profiler already stopped.`,
          ),
        );
      }
      this.#stopped = true;
      dropped.unregister(this);
      const until = nativeNow(); // samples taken after stop() is invoked are left out
      const h = this.#trace,
        sampler = this.#sampler;
      this.#trace = 0;
      this.#sampler = null;
      return (async () => {
        try {
          await sampler.stop(until);
          return codec.read(h);
        } finally {
          codec.free(h);
        }
      })();
    }
  }

  // WebIDL: attributes and operations are enumerable; the interface has a toStringTag.
  for (const name of ['sampleInterval', 'stopped', 'onsamplebufferfull', 'stop']) {
    Object.defineProperty(Profiler.prototype, name, { enumerable: true });
  }
  Object.defineProperty(Profiler.prototype, Symbol.toStringTag, {
    value: 'Profiler',
    configurable: true,
  });
  Object.defineProperty(Profiler, PERFSHIM_PROFILER, { value: true });
  return Profiler;
}

let cached;
/** The Profiler class of this realm (shared core, default source). */
export function getProfiler() {
  if (!cached) cached = createProfilerClass();
  return cached;
}
