// PerformanceObserver and PerformanceObserverEntryList (Performance Timeline, current draft).
// Types perfshim owns are fed by the timeline's queue step; every other supported type is
// delegated to the host's own PerformanceObserver and lands in the same observer buffer.
import { failed, failedConstruct, domException } from '../host/errors.js';
import {
  dictionarySource,
  isObject,
  requireArgs,
  toDOMString,
  toDouble,
  webidlShape,
} from '../host/webidl.js';
import { INTERNAL } from './entries.js';
import { nativeSupportedTypes } from '../host/host.js';
import { native } from '../host/native.js';
import { OWNED_TYPES, typeIndex, entryQueries } from './timeline.js';

const warn = (message) => globalThis.console?.warn?.(`PerformanceObserver: ${message}`);

/** PerformanceObserverInit, members in lexicographic order: buffered, entryTypes, type. */
function toObserverInit(v, context) {
  const src = dictionarySource(v, context, 'PerformanceObserverInit') || {};
  const init = {};
  const buffered = src.buffered;
  if (buffered !== undefined) init.buffered = !!buffered;
  // Event Timing's extension of the dictionary (read in lexicographic order, after buffered):
  // kept so that observing 'event' through the host honours it.
  const durationThreshold = src.durationThreshold;
  if (durationThreshold !== undefined)
    init.durationThreshold = toDouble(durationThreshold, context, 'durationThreshold');
  const entryTypes = src.entryTypes;
  if (entryTypes !== undefined) {
    if (!isObject(entryTypes) || typeof entryTypes[Symbol.iterator] !== 'function')
      throw new TypeError(`${context}: The provided value cannot be converted to a sequence.`);
    init.entryTypes = Array.from(entryTypes, (t) => toDOMString(t, context));
  }
  const type = src.type;
  if (type !== undefined) init.type = toDOMString(type, context);
  return init;
}

export function createObserverClasses(timeline) {
  const supported = Object.freeze([...new Set([...nativeSupportedTypes, ...OWNED_TYPES])].sort());
  const supportedSet = new Set(supported);
  const hostTypes = new Set(timeline.host ? timeline.hostTypes : []);

  class PerformanceObserverEntryList {
    #list;
    constructor(token, entries) {
      if (token !== INTERNAL)
        throw new TypeError(
          `${failedConstruct('PerformanceObserverEntryList')}: Illegal constructor`,
        );
      // Stable sort: chronological by startTime, ties in the order they were queued.
      this.#list = entries.sort((a, b) => a.startTime - b.startTime);
    }

    static {
      const check = (self, op) => {
        const context = failed(op, 'PerformanceObserverEntryList');
        if (!(#list in self)) throw new TypeError(`${context}: Illegal invocation`);
        return context;
      };
      // Performance Timeline §filter buffer by name and type, over a list in time order.
      const filter = (self, name, type) =>
        self.#list.filter(
          (e) => (type === null || e.entryType === type) && (name === null || e.name === name),
        );
      Object.assign(this.prototype, entryQueries(check, filter));
    }
  }

  class PerformanceObserver {
    #callback;
    #buffer = [];
    #observerType = 'undefined';
    #requiresDropped = false;
    #types = new Set(); // the types the registered observer's options list names
    #registered = null; // our record in timeline.registered while registered
    #host = null; // the host observer for delegated types
    #hostDropped = 0;

    constructor(callback) {
      const context = failedConstruct('PerformanceObserver');
      requireArgs(arguments.length, 1, context);
      if (typeof callback !== 'function')
        throw new TypeError(`${context}: parameter 1 is not of type 'Function'.`);
      this.#callback = callback;
    }

    /** The brand check; returns the context of `op`'s messages. */
    #check(op) {
      const context = failed(op, 'PerformanceObserver');
      if (!(#callback in this)) throw new TypeError(`${context}: Illegal invocation`);
      return context;
    }

    /** Performance Timeline §observe() method. */
    observe(options = undefined) {
      const context = this.#check('observe');
      const init = toObserverInit(options, context);
      if (init.entryTypes === undefined && init.type === undefined)
        throw new TypeError(
          `${context}: An observe() call must include either entryTypes or type arguments.`,
        );
      if (init.entryTypes !== undefined && init.type !== undefined)
        throw new TypeError(
          `${context}: An observe() call must not include both entryTypes and type arguments.`,
        );
      if (init.entryTypes !== undefined && init.buffered !== undefined) {
        // The draft makes this a TypeError; browsers ignore `buffered` here and conformance
        // tests rely on that, so we do too.
        warn('the buffered flag is ignored when entryTypes is used.');
        delete init.buffered;
      }
      // An observer is 'single' (type) or 'multiple' (entryTypes) from its first observe() on.
      const kind = init.entryTypes ? 'multiple' : 'single';
      if (this.#observerType === 'undefined') this.#observerType = kind;
      if (this.#observerType !== kind) {
        const [did, cannot] = kind === 'multiple' ? ['type', 'entryTypes'] : ['entryTypes', 'type'];
        throw domException(
          'InvalidModificationError',
          `${context}: This observer has performed observe({${did}:...}, therefore it cannot perform observe({${cannot}:...})`,
        );
      }
      this.#requiresDropped = true;
      let registered = init; // the options this call registers
      if (kind === 'multiple') {
        const types = init.entryTypes.filter((t) => supportedSet.has(t));
        const unsupported = init.entryTypes.filter((t) => !supportedSet.has(t));
        if (unsupported.length) warn(`ignoring unsupported entryTypes: ${unsupported.join(', ')}.`);
        if (types.length === 0) {
          warn('no supported entryTypes: the observer was not registered.');
          return;
        }
        registered = { entryTypes: types };
        this.#types = new Set(types);
      } else {
        if (!supportedSet.has(init.type)) {
          warn(`ignoring unsupported type '${init.type}'.`);
          return;
        }
        this.#types.add(init.type);
      }
      if (!this.#registered) {
        this.#registered = {
          observes: (type) => this.#types.has(type),
          accept: (entry) => this.#buffer.push(entry),
          deliver: () => this.#deliver(),
        };
        timeline.registered.push(this.#registered);
      }
      timeline.reindex();
      this.#syncHost(registered);
      const t = typeIndex(init.type); // -1 for entryTypes (whose buffered flag is dropped)
      if (init.buffered && t >= 0) {
        // Entries in buffer order (insertion order).
        for (const e of timeline.owned(t, null)) this.#buffer.push(e);
        timeline.queueTask();
      }
    }

    /** Delegate the host's types to a host observer, mirroring this observe() call. */
    #syncHost(init) {
      if (!hostTypes.size || !native.PerformanceObserver) return;
      const types = (init.entryTypes || [init.type]).filter((t) => hostTypes.has(t));
      if (types.length === 0) {
        if (init.entryTypes) this.#dropHost();
        return;
      }
      this.#host ??= new native.PerformanceObserver((list, _obs, opts) => {
        const entries = list.getEntries();
        if (opts && typeof opts.droppedEntriesCount === 'number')
          this.#hostDropped = opts.droppedEntriesCount;
        for (const e of entries) this.#buffer.push(e);
        if (entries.length) timeline.queueTask();
      });
      // For a type: type, buffered and (for 'event') durationThreshold, as given.
      this.#host.observe(
        init.entryTypes ? { entryTypes: types } : { ...init, buffered: !!init.buffered },
      );
    }

    #dropHost() {
      if (this.#host) this.#host.disconnect();
      this.#host = null;
    }

    /** One observer's part of the PerformanceObserver task. */
    #deliver() {
      if (this.#buffer.length === 0) return;
      const entries = this.#buffer;
      this.#buffer = [];
      const list = new PerformanceObserverEntryList(INTERNAL, entries);
      const callbackOptions = {};
      if (this.#requiresDropped) {
        let dropped = this.#hostDropped;
        for (const t of this.#types) dropped += timeline.dropped(t);
        callbackOptions.droppedEntriesCount = dropped;
        this.#requiresDropped = false;
      }
      this.#callback.call(this, list, this, callbackOptions);
    }

    disconnect() {
      this.#check('disconnect');
      if (this.#registered) {
        const i = timeline.registered.indexOf(this.#registered);
        if (i >= 0) timeline.registered.splice(i, 1);
        this.#registered = null;
        timeline.reindex();
      }
      this.#dropHost();
      this.#buffer = [];
      this.#types.clear();
    }

    takeRecords() {
      this.#check('takeRecords');
      const records = this.#buffer;
      this.#buffer = [];
      if (this.#host) for (const e of this.#host.takeRecords()) records.push(e);
      return records;
    }

    static get supportedEntryTypes() {
      return supported;
    }
  }

  webidlShape(PerformanceObserverEntryList, 'PerformanceObserverEntryList');
  webidlShape(PerformanceObserver, 'PerformanceObserver');
  Object.defineProperty(PerformanceObserverEntryList, 'length', { value: 0 });
  Object.defineProperty(PerformanceObserver, 'supportedEntryTypes', {
    ...Object.getOwnPropertyDescriptor(PerformanceObserver, 'supportedEntryTypes'),
    enumerable: true,
  });
  return { PerformanceObserver, PerformanceObserverEntryList };
}
