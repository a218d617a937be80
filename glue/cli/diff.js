// `perfshim diff BASE HEAD`: the functions whose share of the time changed most between two
// profiles (pprof files, or anything `perfshim aggregate` reads), by self time and by total time.
import { commandArgs } from './command-args.js';
import { readBytes, isPprof } from '../field/inputs.js';
import { aggregateProfile, functionTimes } from '../field/pprof.js';
import { aggregateFiles } from './aggregate.js';

export const USAGE = `Usage: perfshim diff BASE HEAD [--top N]

Prints the functions whose share of the time changed most from BASE to HEAD (pprof files, or
field uploads, ProfilerTrace JSON, .cpuprofile files), by self and by total time.

Options:
  --top N      rows per table (default 10)
  -h, --help   this help`;

/** {functions: Map, total} of a file. */
function times(file) {
  const bytes = readBytes(file);
  if (isPprof(bytes)) return functionTimes(bytes);
  const [g] = aggregateFiles([file]).values();
  return functionTimes(aggregateProfile(g.read).encode());
}

/** The rows of the diff: {name, file, self: [base, head], total: [base, head]} as shares (0-1). */
export function diffProfiles(base, head) {
  const rows = new Map();
  for (const [i, p] of [base, head].entries())
    for (const [k, f] of p.functions) {
      let r = rows.get(k);
      if (!r) rows.set(k, (r = { name: f.name, file: f.file, self: [0, 0], total: [0, 0] }));
      r.self[i] = p.total ? f.self / p.total : 0;
      r.total[i] = p.total ? f.total / p.total : 0;
    }
  return [...rows.values()];
}

const pct = (v) => `${(v * 100).toFixed(1)}%`;
const signed = (v) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}`;

export async function run(argv) {
  const parsed = commandArgs(
    'diff',
    USAGE,
    argv,
    { top: { type: 'string', default: '10' } },
    (p) => p.length !== 2 && 'give BASE and HEAD',
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  let rows;
  try {
    rows = diffProfiles(times(positionals[0]), times(positionals[1]));
  } catch (e) {
    process.stderr.write(`perfshim diff: ${e.message}\n`);
    return 1;
  }
  const top = Number(values.top) || 10;
  for (const kind of ['self', 'total']) {
    const d = (r) => r[kind][1] - r[kind][0];
    const list = rows
      .filter((r) => d(r) !== 0)
      .sort((a, b) => Math.abs(d(b)) - Math.abs(d(a)))
      .slice(0, top);
    process.stdout.write(`${kind} time share, base -> head (change in points):\n`);
    for (const r of list) {
      const where = r.file ? `  ${r.file}` : '';
      process.stdout.write(
        `  ${signed(d(r)).padStart(7)}  ${pct(r[kind][0]).padStart(6)} -> ${pct(r[kind][1]).padStart(6)}  ${r.name}${where}\n`,
      );
    }
  }
  return 0;
}
