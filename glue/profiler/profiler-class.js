// The Profiler interface (JS Self-Profiling §The Profiler Interface). JS owns the object, its
// state and its events; the trace lives in the core (src/trace.c) from the first sample to the
// moment stop() hands it over as a plain ProfilerTrace. Samples come from the best source the
// host has (profiler-node.js: V8 through node:inspector; profiler-inspector-async.js: Bun's and
// Deno's samplers through their node:inspector; profiler-chromium.js: the native
// Profiler under the js-profiling document policy; instrument/source.js: code instrumented by
// perfshim's transform, in any window or worker at once); where none can profile (outside a
// window or worker: Node without its inspector and no instrumented code), the constructor throws
// NotAllowedError, as the spec's policy check does, and says what would make it work.
//
// The class only: its core, trace codec and sources come from profiler.js, handed in as a
// function that runs on the first construction, so that the classic script can make the class
// at load without any of their code (glue/classic.js).
import { domException, failed, failedConstruct } from '../host/errors.js';
import {
  dictionarySource,
  isObject,
  requireArgs,
  toDouble,
  toUnsignedLong,
  webidlShape,
} from '../host/webidl.js';
import { nativeNow } from '../host/host.js';
import { PERFSHIM_PROFILER } from '../host/native.js';

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

/**
 * The Profiler class over what `backendOf()` returns on the first construction: `{ core, codec,
 * source }`, the core that holds the traces, its trace codec (profiler-trace.js) and the sample
 * source (a source, a list of them, or null for none).
 */
export function makeProfilerClass(backendOf) {
  let core, codec, source;
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
    #full = false; // the buffer filled: sampling ended, the trace waits for stop()
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
      requireArgs(arguments.length, 1, ctx);
      // ProfilerInitOptions: members in lexicographic order, both required.
      const dict = dictionarySource(options, ctx, 'ProfilerInitOptions') || {};
      const read = (name) =>
        `${ctx}: Failed to read the '${name}' property from 'ProfilerInitOptions'`;
      const required = (name) => {
        const v = dict[name];
        if (v === undefined) throw new TypeError(`${read(name)}: Required member is undefined.`);
        return v;
      };
      const maxBufferSize = toUnsignedLong(required('maxBufferSize'));
      const sampleInterval = toDouble(required('sampleInterval'), read('sampleInterval'));
      // Step 1.
      if (sampleInterval < 0)
        throw new RangeError(
          `${ctx}: Invalid sample interval: sampleInterval must be non-negative.`,
        );
      // Step 2: the policy check; here, whether a source can profile this context at all. The
      // sources are tried best first; one that is not allowed here hands over to the next.
      if (!codec) ({ core, codec, source } = backendOf());
      const sources = [source].flat().filter((s) => s && (!s.available || s.available()));
      if (!sources.length)
        throw domException('NotAllowedError', `${ctx}: ${NOT_ALLOWED_HELP.none}`);
      super();
      // Step 3: a new profiling session in the started state, with an empty trace.
      const h = codec.create(maxBufferSize);
      // The sampler's timers hold the profiler only weakly: a profiler dropped while running is
      // collected, and the registry then stops its sampler and frees its trace.
      const ref = new WeakRef(this);
      const onFull = () => ref.deref()?.#bufferFull();
      for (let i = 0; !this.#sampler; i++) {
        const s = sources[i];
        const interval = s.supportedIntervalMs?.(sampleInterval) ?? sampleInterval;
        try {
          this.#sampler = s.start(codec, h, interval, maxBufferSize, onFull, core);
        } catch (e) {
          const notAllowed = e && e.name === 'NotAllowedError';
          if (notAllowed && i + 1 < sources.length) continue;
          codec.free(h);
          if (!notAllowed) throw e;
          const help = NOT_ALLOWED_HELP[s.name] || e.message || NOT_ALLOWED_HELP.none;
          throw domException('NotAllowedError', `${ctx}: ${help}`);
        }
      }
      this.#trace = h;
      this.#sampleInterval = this.#sampler.intervalMs;
      dropped.register(this, { sampler: this.#sampler, h }, this);
    }

    /** §take a sample, step 1: the buffer is full. The sampler has stopped sampling; the trace
     *  is kept, capped at maxBufferSize, for stop() to resolve with, as Chromium does and WPT's
     *  max-buffer-size test expects (the draft moves the session to stopped, so that stop()
     *  would reject: docs/profiler.md). `stopped` stays false until stop(). */
    #bufferFull() {
      if (this.#stopped || this.#full) return;
      this.#full = true;
      dispatch.call(this, new Event('samplebufferfull'));
    }

    /** The session is stopped: hands over its trace and sampler. */
    #end() {
      this.#stopped = true;
      dropped.unregister(this);
      const session = { h: this.#trace, sampler: this.#sampler };
      this.#trace = 0;
      this.#sampler = null;
      return session;
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
      // EventHandler is [LegacyTreatNonObjectAsNull]: non-objects are null. Its listener is
      // added when it becomes non-null and removed when it becomes null.
      this.#handler = isObject(v) ? v : null;
      if (!this.#handler) {
        removeListener.call(this, 'samplebufferfull', this.#handlerListener);
        this.#handlerListener = null;
      } else if (!this.#handlerListener) {
        this.#handlerListener = (event) => {
          if (typeof this.#handler === 'function') this.#handler.call(this, event);
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
      const until = nativeNow(); // samples taken after stop() is invoked are left out
      const { h, sampler } = this.#end();
      // The sampler may stop synchronously, or throw: either way a promise of the trace.
      return new Promise((stopped) => stopped(sampler.stop(until)))
        .then(() => codec.read(h))
        .finally(() => codec.free(h));
    }
  }

  webidlShape(Profiler, 'Profiler');
  Object.defineProperty(Profiler, PERFSHIM_PROFILER, { value: true });
  return Profiler;
}

const SHARED = Symbol.for('perfshim.Profiler.class');
/** The realm's Profiler class: `make()` makes it on the first call, and every later call (from
 *  any copy of perfshim in this JavaScript realm, as there is one realm object: index.js) returns
 *  that one: glue/classic.js makes it at load, or profiler.js's getProfiler. */
export function sharedProfilerClass(make) {
  return globalThis[SHARED] || (globalThis[SHARED] = make());
}
