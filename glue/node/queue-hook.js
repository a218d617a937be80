// A synchronous listener on the realm's "queue a PerformanceEntry" step, for the Node
// integrations (Server-Timing, OpenTelemetry) that must know the async context a mark or measure
// was made in. A PerformanceObserver's callback runs in a later task, where the request (an
// AsyncLocalStorage store) or the active span of the code that called measure() is gone; the
// queue step runs inside mark()/measure() itself. The listener is registered where the realm's
// PerformanceObservers are (the timeline's registered-observer list), so it sees exactly what
// they see and costs nothing for types it does not watch; it buffers nothing and has no task.
// A listener that throws never breaks the mark()/measure() that fed it: the error is reported
// (as an observer callback's would be) and the entry is buffered as usual.
import { performance } from '../index.js';
import { reportException } from '../host/host.js';

const realm = globalThis[Symbol.for('perfshim.realm')];

/** Call `accept(entry)` synchronously for every entry of `types` ('mark', 'measure') queued in
 *  this realm (perfshim's performance, or the global one after install). Returns `stop()`. */
export function onQueued(types, accept) {
  const timeline = realm.timeline;
  const record = {
    observes: (type) => types.includes(type),
    accept(entry) {
      try {
        accept(entry);
      } catch (e) {
        reportException(e);
      }
    },
    deliver() {},
  };
  timeline.registered.push(record);
  timeline.reindex();
  let stopped = false;
  return function stop() {
    if (stopped) return;
    stopped = true;
    const i = timeline.registered.indexOf(record);
    if (i >= 0) timeline.registered.splice(i, 1);
    timeline.reindex();
  };
}

/** `filter(entry)` as a yes/no that never throws into the server: a throw counts as "no" and
 *  is reported once, as a process warning naming `who` (the integration and its option). */
export function guardedFilter(filter, who) {
  let warned = false;
  return (entry) => {
    try {
      return !!filter(entry);
    } catch (e) {
      if (!warned) {
        warned = true;
        process.emitWarning(
          `${who} threw, its measures are left out: ${e && e.stack ? e.stack : e}`,
          'PerfshimWarning',
        );
      }
      return false;
    }
  };
}

export { performance, realm };
