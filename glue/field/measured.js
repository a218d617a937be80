// An aggregate of the field core whose samples keep the visit's measures around them, as the
// exporters' toPprof labels a single trace (options.entries): each sample inside one or more
// measures counts under a root stack of the aggregate for that set of measure names, and the pprof
// writer (pprof.js) turns that root back into `measure` labels on the samples below it
// (`go tool pprof -tagfocus measure=checkout`). One trie for all sets, so `maxStacks` still bounds
// the whole aggregate; at most `maxSets` sets of names per aggregate (then the samples count at the
// top, unlabelled, and `unlabelled` says how many), `MAX_NAMES` names per set.
import { measureRuns as runsOf } from '../export/export-entries.js';
const MAX_NAMES = 8;

/** Runs of consecutive samples with the same measure names around them: [[first, end, names]],
 *  names in start order, each name once, at most MAX_NAMES. */
export const measureRuns = (times, entries = []) =>
  runsOf(times, entries, (active) =>
    [...new Set(Array.from(active, (m) => m.name))].slice(0, MAX_NAMES),
  );

/** A new aggregate in field core `field` ({add(trace, interval, entries), read(), free()});
 *  read() is field.read()'s shape plus `measures`: Map of root stack id -> measure names. */
export function createMeasuredAggregate(field, { maxStacks = 100000, maxSets = 64 } = {}) {
  const agg = field.aggregate(maxStacks);
  const roots = new Map(); // names joined -> root stack id
  const measures = new Map(); // root stack id -> names
  const self = {
    agg,
    unlabelled: 0,
    /** Merge trace `h` (its last sample weighing `interval` ms), the samples inside each set of
     *  the `entries`' measures under that set's root. */
    add(h, interval, entries) {
      for (const [first, end, names] of measureRuns(field.sampleTimes(h), entries)) {
        let root = -1;
        if (names.length) {
          const key = names.join('\u0000');
          root = roots.get(key);
          if (root === undefined && roots.size < maxSets && key.length < 4000) {
            root = field.root(agg, `(measures) ${key}`);
            roots.set(key, root);
            if (root > 0) measures.set(root, names);
          }
          if (root === undefined) {
            root = -1;
            self.unlabelled += end - first;
          }
        }
        field.add(agg, h, interval, { first, end, root });
      }
    },
    read: () => ({ ...field.read(agg), measures }),
    free: () => field.freeAggregate(agg),
  };
  return self;
}
