// `perfshim collect`: the field collector (glue/field/collector.js) on its own HTTP server.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createCollector } from '../field/collector.js';
import { createSymbolicator } from '../field/symbolicate.js';

export const USAGE = `Usage: perfshim collect [options]

Takes the uploads of perfshim/field's profileVisits() and writes one pprof file per time window
and label set (labels in the path and as pprof labels).

Options:
  --port N         port to listen on (default 9000; 0 for any)
  --host H         address to listen on (default 127.0.0.1)
  --out DIR        where to write the pprof files (default profiles/)
  --maps DIR       source maps for the frames of minified scripts, matched by script file name
  --flush S        window length and write period in seconds (default 60)
  --push URL       also push each profile to this Pyroscope server's /ingest
  --app NAME       the application name pushed to Pyroscope (default perfshim)
  --max-bytes N    largest upload before decompression (default 65536)
  --max-stacks N   distinct stacks per aggregate before "(other)" (default 100000)
  -h, --help       this help

SIGTERM or Ctrl-C writes what is held and exits 0.`;

export async function run(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '9000' },
        host: { type: 'string', default: '127.0.0.1' },
        out: { type: 'string', default: 'profiles' },
        maps: { type: 'string' },
        flush: { type: 'string', default: '60' },
        push: { type: 'string' },
        app: { type: 'string', default: 'perfshim' },
        'max-bytes': { type: 'string', default: '65536' },
        'max-stacks': { type: 'string', default: '100000' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    process.stderr.write(`perfshim collect: ${e.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const num = (flag, min) => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < min) {
      process.stderr.write(`perfshim collect: --${flag} must be an integer >= ${min}\n`);
      return null;
    }
    return n;
  };
  const port = num('port', 0),
    flush = num('flush', 1),
    maxBytes = num('max-bytes', 1),
    maxStacks = num('max-stacks', 2);
  if (port === null || flush === null || maxBytes === null || maxStacks === null) return 2;
  const collector = createCollector({
    out: values.out,
    push: values.push,
    app: values.app,
    windowSeconds: flush,
    maxBytes,
    maxStacks,
    symbolicate: values.maps ? createSymbolicator(values.maps) : undefined,
  });
  const server = createServer((req, res) => collector.handler(req, res));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, values.host, resolve);
  });
  const { address, port: bound } = server.address();
  process.stderr.write(`perfshim collect: listening on http://${address}:${bound}/\n`);
  const timer = setInterval(() => {
    collector.flush().then(report, (e) => process.stderr.write(`perfshim collect: ${e.message}\n`));
  }, flush * 1000);
  const report = (files) => {
    for (const f of files) process.stderr.write(`perfshim collect: wrote ${f}\n`);
  };
  return new Promise((resolve) => {
    const stop = () => {
      clearInterval(timer);
      server.close();
      server.closeAllConnections?.();
      collector.close().then(
        (files) => {
          report(files);
          const s = collector.stats;
          process.stderr.write(
            `perfshim collect: ${s.accepted} uploads accepted, ${s.refused} refused\n`,
          );
          resolve(0);
        },
        (e) => {
          process.stderr.write(`perfshim collect: ${e.message}\n`);
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
