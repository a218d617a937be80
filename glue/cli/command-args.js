// The arguments of the field commands (aggregate, diff, symbolicate): node:util's parseArgs with
// --help, and the usage on stderr with exit code 2 for arguments that do not parse or that
// `missing(positionals, values)` finds wanting.
import { parseArgs } from 'node:util';

/** { values, positionals }, or the exit code to return (0 after --help, 2 for bad arguments). */
export function commandArgs(name, usage, argv, options, missing) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    process.stderr.write(`perfshim ${name}: ${e.message}\n\n${usage}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const why = missing(parsed.positionals, parsed.values);
  if (why) {
    process.stderr.write(`perfshim ${name}: ${why}\n\n${usage}\n`);
    return 2;
  }
  return parsed;
}
