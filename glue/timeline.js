// The timeline of one realm: the core's entry buffer for the types perfshim owns (mark,
// measure), the host's timeline for every other type, and the observer registry that
// "queue a PerformanceEntry" feeds. JS keeps only what must be JS: the entry objects (slot ->
// object, so queries return the same objects every time) and the name -> id map.
import { PS_E_LIMIT, PS_TYPE_MARK, PS_TYPE_MEASURE } from './abi.js';
import { native, nativePerformance, nativeSupportedTypes, queueTask, reportException, isNode } from './host.js';

export const OWNED_TYPES = Object.assign([], { [PS_TYPE_MARK]: 'mark', [PS_TYPE_MEASURE]: 'measure' });
const TYPE_INDEX = new Map(OWNED_TYPES.map((t, i) => [t, i]));
export const typeIndex = (type) => { const i = TYPE_INDEX.get(type); return i === undefined ? -1 : i; };

/** Merge two lists sorted by startTime (stable: `a` first on ties). */
function mergeSorted(a, b) {
  if (!a.length) return b;
  if (!b.length) return a;
  const out = new Array(a.length + b.length);
  let i = 0, j = 0, k = 0;
  while (i < a.length && j < b.length) out[k++] = b[j].startTime < a[i].startTime ? b[j++] : a[i++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

export class Timeline {
  constructor(core, { host = true } = {}) {
    this.core = core;
    this.names = new Map();      // name -> id in the core
    this.idNames = [];           // id -> name
    this.releaseAt = 4096;       // names held before unused ones are released
    this.objects = [];           // slot -> entry object
    this.host = host && !!nativePerformance && !!native.getEntriesByType && !!native.getEntriesByName;
    this.hostTypes = nativeSupportedTypes.filter((t) => !TYPE_INDEX.has(t));
    this.registered = [];        // registered performance observers (spec order)
    this.interested = OWNED_TYPES.map(() => []); // per owned type: registered observers
    this.taskQueued = false;
  }

  /** Id of `name`, interning it in the core the first time. */
  intern(name) {
    let id = this.names.get(name);
    if (id !== undefined) return id;
    if (this.names.size >= this.releaseAt) this.releaseNames();
    const core = this.core;
    id = core.check(core.x.ps_timeline_intern(core.putString(name)), 'perfshim');
    this.names.set(name, id);
    this.idNames[id] = name;
    return id;
  }

  /** Forget the names no buffered entry uses (the core frees them too). */
  releaseNames() {
    const core = this.core;
    const n = core.check(core.x.ps_timeline_release_names(), 'perfshim');
    const mem = core.u32(), base = core.results();
    for (let i = 0; i < n; i++) {
      const id = mem[base + i];
      this.names.delete(this.idNames[id]);
      this.idNames[id] = undefined;
    }
    this.releaseAt = Math.max(4096, this.names.size * 2);
  }

  /** Record a slot returned by the core for `entry` (or nothing when it was dropped). */
  store(slot, entry, context) {
    if (slot >= 0) this.objects[slot] = entry;
    else if (slot !== PS_E_LIMIT) this.core.check(slot, context);
  }

  /** Our entries of an owned type index (or -1 = all owned types), optionally one name. */
  owned(type, name) {
    let id = -1;
    if (name !== null) {
      id = this.names.get(name);
      if (id === undefined) return [];
    }
    const core = this.core;
    const n = core.check(core.x.ps_timeline_query(type, id), 'perfshim');
    const mem = core.u32(), base = core.results();
    const objects = this.objects;
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = objects[mem[base + i]];
    return out;
  }

  /** The host's entries of the types we do not own, asked the way that host answers fastest. */
  hostEntries(name, type) {
    if (!this.host) return [];
    if (type !== null) return this.hostOfType(name, type);
    if (!isNode || !this.hostTypes.length) {
      // Browsers index their buffers by name but scan for (name, type): one query, filtered.
      let all;
      try {
        all = name === null ? native.getEntries.call(nativePerformance) : native.getEntriesByName.call(nativePerformance, name);
      } catch {
        return [];
      }
      return all.length ? all.filter((e) => !TYPE_INDEX.has(e.entryType)) : all;
    }
    // Node scans every buffer for a name (its own marks too): ask type by type instead.
    let out = [];
    for (const t of this.hostTypes) {
      const list = this.hostOfType(name, t);
      if (list.length) out = out.length ? mergeSorted(out, list) : list;
    }
    return out;
  }

  hostOfType(name, type) {
    try {
      if (name === null) return native.getEntriesByType.call(nativePerformance, type);
      return native.getEntriesByName.call(nativePerformance, name, type);
    } catch {
      return []; // a host query that throws (e.g. Node's stack overflow) yields nothing
    }
  }

  /** Performance Timeline §filter buffer map by name and type. */
  filter(name, type) {
    if (type !== null) {
      const t = typeIndex(type);
      return t >= 0 ? this.owned(t, name) : this.hostEntries(name, type);
    }
    return mergeSorted(this.hostEntries(name, null), this.owned(-1, name));
  }

  /** clearMarks/clearMeasures: drop the entries and our references to them. */
  clear(type, name) {
    let id = -1;
    if (name !== null) {
      id = this.names.get(name);
      if (id === undefined) return;
    }
    const core = this.core;
    const n = core.check(core.x.ps_timeline_clear(type, id), 'perfshim');
    const mem = core.u32(), base = core.results();
    const objects = this.objects;
    for (let i = 0; i < n; i++) objects[mem[base + i]] = undefined;
  }

  /** Performance Timeline §queue a PerformanceEntry, observer part (buffering is the core's). */
  queue(entry, type) {
    const list = this.interested[type];
    if (list.length === 0) return;
    for (let i = 0; i < list.length; i++) list[i].accept(entry);
    this.queueTask();
  }

  /** Performance Timeline §queue the PerformanceObserver task. */
  queueTask() {
    if (this.taskQueued) return;
    this.taskQueued = true;
    queueTask(() => this.runTask());
  }

  runTask() {
    this.taskQueued = false;
    const notify = this.registered.slice();
    for (const reg of notify) {
      try {
        reg.deliver();
      } catch (e) {
        reportException(e);
      }
    }
  }

  /** Rebuild the per-type lists after the registry changed. */
  reindex() {
    this.interested = OWNED_TYPES.map((t) => this.registered.filter((r) => r.observes(t)));
  }

  dropped(type) {
    const t = typeIndex(type);
    return t >= 0 ? this.core.x.ps_timeline_dropped(t) : 0;
  }
}
