#!/usr/bin/env node
// The `perfshim` command: `perfshim profile ...` (profile.js) and `perfshim instrument ...`
// (instrument.js, the instrumentation source transform). Each subcommand module exports
// `async function run(argv)` resolving with an exit code (or setting process.exitCode).
import { existsSync, readFileSync } from 'node:fs';

const USAGE = `Usage: perfshim <command> [options]

Commands:
  profile      run a Node script under the profiler and write its profiles
               (perfshim profile --help)
  instrument   add profiling probes to JavaScript sources, for browsers without a Profiler
               (perfshim instrument --help)
  collect      take field profiles (perfshim/field) and write pprof per window and labels
  aggregate    merge uploads, traces and .cpuprofile files into pprof
  diff         the functions whose share of the time changed most between two profiles
  symbolicate  map a trace's minified frames back through source maps

Options:
  -h, --help     this help
  -v, --version  the version of perfshim`;

const COMMANDS = {
  profile: './profile.js',
  instrument: './instrument.js',
  collect: './collect.js',
  aggregate: './aggregate.js',
  diff: './diff.js',
  symbolicate: './symbolicate.js',
};

export async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    (command === undefined ? process.stderr : process.stdout).write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === '-v' || command === '--version') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, command)) {
    process.stderr.write(`perfshim: unknown command '${command}'\n\n${USAGE}\n`);
    return 2;
  }
  // Loaded only when asked for; a module that is not there is a message, anything else it
  // throws while loading is a real error and surfaces as one.
  const url = new URL(COMMANDS[command], import.meta.url);
  if (!existsSync(url)) {
    process.stderr.write(
      `perfshim: the '${command}' command is not available in this installation (glue/cli/${command}.js is missing)\n`,
    );
    return 2;
  }
  const mod = await import(url.href);
  if (typeof mod.run !== 'function') {
    process.stderr.write(`perfshim: the '${command}' command has no run(argv) entry\n`);
    return 2;
  }
  const code = await mod.run(rest);
  return typeof code === 'number' ? code : (process.exitCode ?? 0);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`perfshim: ${e && e.stack ? e.stack : e}\n`);
    process.exitCode = 1;
  },
);
