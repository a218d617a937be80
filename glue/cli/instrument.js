// `perfshim instrument in.js -o out.js [--url URL] [--stack always] [--every-function]
// [--no-source-map]`: instruments one plain script or module file for the Profiler's
// instrumentation source (`--stack always`: the stack kept from the file's first run on, not
// only while a profiler runs; `--every-function`: the tiny functions too: transform.js). An input source map named by the file's `//# sourceMappingURL=` comment
// (a file or an inline data: URL) is composed with ours; the output map is written next to the
// output (out.js.map) and linked from it.
// The output's folder is created when it does not exist. `run(argv)` returns the exit code: 0
// done, 1 the input could not be read or parsed, the output would not load (the transform
// parses what it wrote: transform.js) or could not be written, 2 usage.
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { instrument } from '../instrument/transform.js';

const USAGE =
  'usage: perfshim instrument <in.js> -o <out.js> [--url <url>] [--stack profiling|always] [--every-function] [--no-source-map]';
const MAP_COMMENT = /\/\/[#@] sourceMappingURL=([^\s'"]+)\s*$/;

function parseArgs(argv) {
  const o = { input: null, output: null, url: null, map: true, stack: 'profiling', every: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-o' || a === '--output') o.output = argv[++i];
    else if (a === '--url') o.url = argv[++i];
    else if (a === '--stack') o.stack = argv[++i];
    else if (a === '--no-source-map') o.map = false;
    else if (a === '--every-function') o.every = true;
    else if (a === '-h' || a === '--help') return { help: true };
    else if (a.startsWith('-') || o.input !== null) return { error: `unexpected argument '${a}'` };
    else o.input = a;
  }
  if (!o.input || !o.output) return { error: 'an input file and -o <output> are required' };
  if (o.url === undefined) return { error: '--url needs a value' };
  if (o.stack !== 'profiling' && o.stack !== 'always')
    return { error: "--stack takes 'profiling' or 'always'" };
  return o;
}

function inputMapOf(code, file) {
  const m = MAP_COMMENT.exec(code);
  if (!m) return null;
  const ref = m[1];
  const data = /^data:application\/json(?:;charset=[^;,]+)?;base64,(.*)$/.exec(ref);
  if (data) return Buffer.from(data[1], 'base64').toString('utf8');
  const path = resolve(dirname(file), decodeURIComponent(ref));
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

export async function run(argv, { stdout = process.stdout, stderr = process.stderr } = {}) {
  const o = parseArgs(argv);
  if (o.help) {
    stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (o.error) {
    stderr.write(`perfshim instrument: ${o.error}\n${USAGE}\n`);
    return 2;
  }
  let code;
  try {
    code = readFileSync(o.input, 'utf8');
  } catch (e) {
    stderr.write(`perfshim instrument: cannot read ${o.input}: ${e.message}\n`);
    return 1;
  }
  let out;
  try {
    const inputMap = inputMapOf(code, o.input);
    const body = inputMap ? code.replace(MAP_COMMENT, '') : code;
    out = instrument(body, {
      file: basename(o.input),
      url: o.url || basename(o.input),
      inputMap,
      stack: o.stack,
      everyFunction: o.every,
    });
  } catch (e) {
    const where = e.loc ? `${o.input}:${e.loc.line}:${e.loc.column + 1}` : o.input;
    stderr.write(`perfshim instrument: ${where}: ${e.message}\n`);
    return 1;
  }
  let text = out.code;
  try {
    mkdirSync(dirname(resolve(o.output)), { recursive: true });
    if (o.map && out.map) {
      const mapFile = `${o.output}.map`;
      writeFileSync(mapFile, JSON.stringify({ ...out.map, file: basename(o.output) }));
      text = `${text.replace(/\n?$/, '\n')}//# sourceMappingURL=${basename(mapFile)}\n`;
    }
    writeFileSync(o.output, text);
  } catch (e) {
    stderr.write(`perfshim instrument: cannot write ${o.output}: ${e.message}\n`);
    return 1;
  }
  stdout.write(`perfshim instrument: ${out.frames.length} functions instrumented -> ${o.output}\n`);
  return 0;
}
