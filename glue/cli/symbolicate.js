// `perfshim symbolicate trace.json --maps DIR [-o out.json]`: a ProfilerTrace (or .cpuprofile,
// or field upload) with its minified frames mapped back through the source maps in DIR
// (glue/field/symbolicate.js), written as ProfilerTrace JSON.
import { writeFileSync } from 'node:fs';
import { commandArgs } from './command-args.js';
import { createField } from '../field/core.js';
import { loadTrace } from '../field/inputs.js';
import { createSymbolicator } from '../field/symbolicate.js';

export const USAGE = `Usage: perfshim symbolicate TRACE --maps DIR [-o OUT]

Maps the frames of minified scripts in TRACE (ProfilerTrace JSON, .cpuprofile or a field
upload) to original names, files, lines and columns with the source maps in DIR (matched by
the script's file name), and writes the ProfilerTrace JSON to OUT (default: stdout).`;

export async function run(argv) {
  const parsed = commandArgs(
    'symbolicate',
    USAGE,
    argv,
    {
      maps: { type: 'string' },
      out: { type: 'string', short: 'o' },
    },
    (p, v) => (p.length !== 1 || !v.maps) && 'give one TRACE and --maps',
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const field = createField();
  try {
    const v = loadTrace(field, positionals[0]);
    const trace = field.codec.read(v.trace);
    field.free(v.trace);
    const text = `${JSON.stringify(createSymbolicator(values.maps)(trace))}\n`;
    if (values.out) writeFileSync(values.out, text);
    else process.stdout.write(text);
  } catch (e) {
    process.stderr.write(`perfshim symbolicate: ${e.message}\n`);
    return 1;
  }
  return 0;
}
