// `perfshim aggregate FILES... [--by release,route] -o merged.pb.gz`: field uploads, ProfilerTrace
// JSON and .cpuprofile files merged in the field core into one pprof per group of labels (the
// uploads' measures as `measure` labels on the samples inside them).
import { writeFileSync } from 'node:fs';
import { commandArgs } from './command-args.js';
import { createField } from '../field/core.js';
import { loadTrace } from '../field/inputs.js';
import { createMeasuredAggregate } from '../field/measured.js';
import { aggregateToPprof } from '../field/pprof.js';

export const USAGE = `Usage: perfshim aggregate FILES... -o merged.pb.gz [--by LABELS]

Merges field uploads (gzipped or not), ProfilerTrace JSON and .cpuprofile files into pprof.

Options:
  -o, --out FILE     the pprof file to write (with --by: one per group, FILE's name + the labels)
  --by LIST          comma-separated label names to group by (e.g. release,route)
  --max-stacks N     distinct stacks before "(other)" (default 100000)
  -h, --help         this help`;

/** Merge `files` into aggregates grouped by the labels `by`: Map of group key -> {labels, read,
 *  period}. */
export function aggregateFiles(files, { by = [], maxStacks = 100000, field = createField() } = {}) {
  const groups = new Map();
  for (const file of files) {
    const v = loadTrace(field, file);
    try {
      const labels = {};
      for (const k of by) if (v.labels[k] !== undefined) labels[k] = v.labels[k];
      const key = by.map((k) => `${k}=${encodeURIComponent(labels[k] ?? '')}`).join(',');
      let g = groups.get(key);
      if (!g) {
        const m = createMeasuredAggregate(field, { maxStacks });
        groups.set(key, (g = { labels, m, period: 0 }));
      }
      g.period ||= v.interval;
      g.m.add(v.trace, v.interval, v.entries);
    } finally {
      field.free(v.trace);
    }
  }
  for (const g of groups.values()) {
    g.read = g.m.read();
    g.m.free();
  }
  return groups;
}

export async function run(argv) {
  const parsed = commandArgs(
    'aggregate',
    USAGE,
    argv,
    {
      out: { type: 'string', short: 'o' },
      by: { type: 'string', default: '' },
      'max-stacks': { type: 'string', default: '100000' },
    },
    (p, v) => (!p.length || !v.out) && 'give FILES and -o',
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const by = values.by.split(',').filter(Boolean);
  let groups;
  try {
    groups = aggregateFiles(positionals, { by, maxStacks: Number(values['max-stacks']) });
  } catch (e) {
    process.stderr.write(`perfshim aggregate: ${e.message}\n`);
    return 1;
  }
  const base = values.out.replace(/\.pb(\.gz)?$/, '');
  for (const [key, g] of groups) {
    const file = by.length ? `${base}.${key}.pb.gz` : values.out;
    const ms = g.read.info.ms;
    writeFileSync(
      file,
      aggregateToPprof(g.read, { labels: g.labels, durationMs: ms, periodMs: g.period || 10 }),
    );
    process.stdout.write(`${file}: ${g.read.info.samples} samples, ${ms.toFixed(1)} ms\n`);
  }
  return 0;
}
