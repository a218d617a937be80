// The timeline of one realm: the core's entry buffer for the types perfshim owns (mark,
// measure), the host's timeline for every other type, and the observer registry that
// "queue a PerformanceEntry" feeds. JS keeps what must be JS: the entry objects (slot ->
// object, so queries return the same objects every time), their values in column chunks (an
// entry held after a clear keeps its chunk) and the name -> id map.
import { PS_E_LIMIT, PS_TYPE_MARK, PS_TYPE_MEASURE } from '../host/abi.js';
import { Chunk, CHUNK_BITS, CHUNK, place, newEntry, looseEntry, detach } from './entries.js';
import {
  nativePerformance,
  nativeSupportedTypes,
  queueTask,
  reportException,
} from '../host/host.js';
import { native, isNode } from '../host/native.js';
import { requireArgs, toDOMString } from '../host/webidl.js';

/** The entry types perfshim owns, at their core type codes. */
export const OWNED_TYPES = [];
OWNED_TYPES[PS_TYPE_MARK] = 'mark';
OWNED_TYPES[PS_TYPE_MEASURE] = 'measure';
/** The core type code of an entry type, -1 for a type perfshim does not own. */
export const typeIndex = (type) => OWNED_TYPES.indexOf(type);

// The names a browser's own entry types can carry, from their specs: a URL (resource,
// navigation, soft-navigation: always with a scheme, so with ':'), or one of a few fixed names
// (the empty name for LCP, layout-shift and back-forward-cache-restoration; paint, element,
// visibility-state, longtask and taskattribution names; Event Timing's input events), or the
// type's own name, to be safe. A host with any other type may name entries anything.
const KNOWN_TYPES = new Set([
  ...'resource navigation soft-navigation paint largest-contentful-paint layout-shift'.split(' '),
  ...'interaction-contentful-paint element visibility-state longtask taskattribution'.split(' '),
  ...'event first-input back-forward-cache-restoration long-animation-frame script'.split(' '),
]);
const FIXED_NAMES = new Set([
  '',
  ...KNOWN_TYPES,
  ...'first-paint first-contentful-paint image-paint text-paint visible hidden unknown'.split(' '),
  ...'self same-origin-ancestor same-origin-descendant same-origin cross-origin-ancestor'.split(
    ' ',
  ),
  ...'cross-origin-descendant cross-origin-unreachable multiple-contexts script'.split(' '),
  ...'auxclick click contextmenu dblclick mousedown mouseenter mouseleave mouseout'.split(' '),
  ...'mouseover mouseup pointerover pointerenter pointerdown pointerup pointercancel'.split(' '),
  ...'pointerout pointerleave gotpointercapture lostpointercapture touchstart touchend'.split(' '),
  ...'touchcancel keydown keypress keyup beforeinput input compositionstart'.split(' '),
  ...'compositionupdate compositionend dragstart dragend dragenter dragleave dragover'.split(' '),
  'drop',
]);

/** For a browser's own entry types: a test of whether a name may be one of their entries'
 *  names (false: getEntriesByName need not ask the host), or null when some type's names are
 *  not known (ask every time). */
export const hostNameFilter = (types) =>
  types.every((t) => KNOWN_TYPES.has(t)) ? (n) => n.includes(':') || FIXED_NAMES.has(n) : null;

/** The host's getEntriesByName(name, type), getEntriesByType(type) or getEntries() (null: not
 *  given); a host query that throws (e.g. Node's stack overflow) yields nothing. */
export function hostQuery(name, type) {
  try {
    if (name !== null)
      return native.getEntriesByName.call(nativePerformance, name, type ?? undefined);
    if (type !== null) return native.getEntriesByType.call(nativePerformance, type);
    return native.getEntries.call(nativePerformance);
  } catch {
    return [];
  }
}

/** getEntries, getEntriesByType and getEntriesByName (Performance Timeline) for an interface
 *  whose brand check `check(self, op)` returns the context of op's messages, over its
 *  `filter(self, name, type)` (null: any name or type). */
export const entryQueries = (check, filter) => ({
  getEntries() {
    check(this, 'getEntries');
    return filter(this, null, null);
  },
  getEntriesByType(type) {
    const context = check(this, 'getEntriesByType');
    requireArgs(arguments.length, 1, context);
    return filter(this, null, toDOMString(type, context));
  },
  getEntriesByName(name, type = undefined) {
    const context = check(this, 'getEntriesByName');
    requireArgs(arguments.length, 1, context);
    name = toDOMString(name, context);
    return filter(this, name, type === undefined ? null : toDOMString(type, context));
  },
});

/** Merge two lists sorted by startTime (stable: `a` first on ties). */
function mergeSorted(a, b) {
  if (!a.length) return b;
  if (!b.length) return a;
  const out = new Array(a.length + b.length);
  let i = 0,
    j = 0,
    k = 0;
  while (i < a.length && j < b.length) out[k++] = b[j].startTime < a[i].startTime ? b[j++] : a[i++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

export class Timeline {
  constructor(core, { host = true } = {}) {
    this.core = core;
    this.names = new Map(); // name -> id in the core (the only copy of the string)
    this.releaseAt = 4096; // names held before unused ones are released
    // Per type (slot & 1), by j = (slot >>> 1) >> CHUNK_BITS: chunks[type][j] the Chunk holding
    // that slot's values, objects[type][j] the array of its entry objects.
    this.chunks = OWNED_TYPES.map(() => []);
    this.objects = OWNED_TYPES.map(() => []);
    this.host = host && !!native.getEntriesByType && !!native.getEntriesByName; // (null: no host)
    this.hostTypes = nativeSupportedTypes.filter((t) => typeIndex(t) < 0);
    this.hostMayName = isNode ? null : hostNameFilter(this.hostTypes);
    this.registered = []; // registered performance observers (spec order)
    this.interested = OWNED_TYPES.map(() => []); // per owned type: registered observers
    this.taskQueued = false;
  }

  /** Id of `name`: the core hands out a new one the first time (the string stays here). */
  intern(name) {
    let id = this.names.get(name);
    if (id !== undefined) return id;
    if (this.names.size >= this.releaseAt) this.releaseNames();
    const core = this.core;
    id = core.check(core.x.ps_timeline_name_new(), 'perfshim');
    this.names.set(name, id);
    return id;
  }

  /** Forget the names no buffered entry uses (the core reuses their ids). O(names), and run
   *  only when the map has doubled since the last time. */
  releaseNames() {
    const core = this.core;
    const n = core.check(core.x.ps_timeline_release_names(), 'perfshim');
    const mem = core.u32(),
      base = core.results();
    const gone = new Set(mem.subarray(base, base + n));
    for (const [name, id] of this.names) if (gone.has(id)) this.names.delete(name);
    this.releaseAt = Math.max(4096, this.names.size * 2);
  }

  /** Buffer an entry (when the buffer is full it is only made) and return its object. */
  add(type, name, startTime, duration, detail, context) {
    const slot = this.core.x.ps_timeline_add(type, this.intern(name), startTime, duration);
    return this.entry(type, slot, name, startTime, duration, detail, context);
  }

  /** The object of an entry the core was asked to buffer, given what the core returned: its
   *  slot (the values are placed in the slot's chunk), or PS_E_LIMIT (a full buffer: an entry
   *  outside it); another status is thrown. */
  entry(type, slot, name, startTime, duration, detail, context) {
    if (slot < 0) {
      if (slot !== PS_E_LIMIT) this.core.check(slot, context);
      return looseEntry(null, OWNED_TYPES[type], name, startTime, duration, detail);
    }
    const k = slot >>> 1,
      j = k >>> CHUNK_BITS,
      i = k & (CHUNK - 1);
    let c = this.chunks[type][j];
    if (c === undefined) {
      c = this.chunks[type][j] = new Chunk(OWNED_TYPES[type]);
      this.objects[type][j] = new Array(CHUNK);
    }
    place(c, i, name, startTime, duration, detail);
    return (this.objects[type][j][i] = newEntry(c, i));
  }

  /** Our entries of an owned type index (or -1 = all owned types), optionally one name. */
  owned(type, name) {
    const id = name === null ? -1 : this.names.get(name);
    if (id === undefined) return []; // a name no entry has
    const core = this.core;
    const n = core.check(core.x.ps_timeline_query(type, id), 'perfshim');
    const mem = core.u32(),
      base = core.results();
    const objects = this.objects;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const s = mem[base + i],
        k = s >>> 1;
      out[i] = objects[s & 1][k >>> CHUNK_BITS][k & (CHUNK - 1)];
    }
    return out;
  }

  /** The host's entries of the types we do not own, asked the way that host answers fastest. */
  hostEntries(name, type) {
    if (!this.host) return [];
    if (type !== null) return hostQuery(name, type);
    if (!isNode || !this.hostTypes.length) {
      // A name none of the host's types can carry (most mark names): no host query at all.
      if (name !== null && this.hostMayName && !this.hostMayName(name)) return [];
      // Browsers index their buffers by name but scan for (name, type): one query, filtered.
      const all = hostQuery(name, null);
      return all.length ? all.filter((e) => typeIndex(e.entryType) < 0) : all;
    }
    // Node scans every buffer for a name (its own marks too): ask type by type instead.
    return this.hostTypes.reduce((out, t) => mergeSorted(out, hostQuery(name, t)), []);
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
    const id = name === null ? -1 : this.names.get(name);
    if (id === undefined) return;
    const core = this.core;
    const n = core.check(core.x.ps_timeline_clear(type, id), 'perfshim');
    if (id < 0) {
      // The core dropped the whole type (and reports no slots): so do the tables, in O(1). An
      // entry still held keeps its own chunk's values.
      this.chunks[type] = [];
      this.objects[type] = [];
      return;
    }
    // The core reuses these slots: each entry object gets values of its own first.
    const mem = core.u32(),
      base = core.results();
    for (let m = 0; m < n; m++) this.release(type, mem[base + m]);
  }

  /** The entry object of a slot the core no longer holds: it keeps values of its own, and the
   *  tables forget it (the core reuses the slot). */
  release(type, slot) {
    const k = slot >>> 1,
      j = k >>> CHUNK_BITS,
      i = k & (CHUNK - 1),
      c = this.chunks[type][j];
    detach(this.objects[type][j][i]);
    this.objects[type][j][i] = undefined;
    c.n[i] = undefined;
    if (c.x !== null) c.x[i] = undefined;
  }

  /** Remove exactly these entry objects from the buffer (same-named others stay); an entry no
   *  longer buffered is skipped. O(entries of each name involved). */
  remove(entries) {
    const core = this.core;
    const byName = new Map(); // "type name" -> the entries to remove
    for (const e of entries) {
      const type = typeIndex(e.entryType),
        key = `${type} ${e.name}`;
      if (!byName.has(key)) byName.set(key, new Set());
      byName.get(key).add(e);
    }
    for (const doomed of byName.values()) {
      const [first] = doomed,
        type = typeIndex(first.entryType),
        id = this.names.get(first.name);
      if (id === undefined) continue;
      const n = core.check(core.x.ps_timeline_query(type, id), 'perfshim');
      const slots = core.u32().slice(core.results(), core.results() + n); // the next call may reuse the buffer
      for (const slot of slots) {
        const k = slot >>> 1,
          e = this.objects[type][k >>> CHUNK_BITS][k & (CHUNK - 1)];
        if (doomed.has(e) && core.x.ps_timeline_remove(slot, id)) this.release(type, slot);
      }
    }
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
    for (const reg of this.registered.slice()) {
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

  /** Entries of `type` dropped by a full buffer (the core answers 0 for a type it does not own). */
  dropped(type) {
    return this.core.x.ps_timeline_dropped(typeIndex(type));
  }
}
