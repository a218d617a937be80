#!/usr/bin/env node
// The glue's size across revisions in ONE format: each revision's glue/ is exported, formatted
// with this tree's Biome configuration (biome.json, the formatter `make lint` enforces) and
// counted (non-blank, non-comment lines: tools/count-lines.mjs). Counting a revision from before
// the formatter was added (b52189e) as it was written compares two styles: Biome alone turned
// 2,718 lines into 3,272 there. The rows:
//   filing's 21 files   the top-level glue files at issue 10's filing (805f1d3)
//   io layer            the modules the boundary work added for them (io, sampler,
//                       export-entries, and the generated abi.js)
//   top-level glue      every glue/*.js (later features such as pprof.js included)
//   src/ (C)            as committed (no formatter involved)
//   node tools/glue-size.mjs [REV ...]   (default: 805f1d3 and the working tree, ".")
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countLines, isGenerated } from './count-lines.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILING = (
  'auto-classic auto clone entries errors export host index install loader measure-memory-browser ' +
  'measure-memory-node measure-memory observer performance profiler-chromium profiler-node ' +
  'profiler-trace profiler timeline webidl'
).split(' ');
const IO = ['io', 'sampler', 'export-entries', 'abi'];

/** glue/ and src/ of `rev` ('.' = the working tree) in a fresh folder, the glue formatted. */
function checkout(rev) {
  const dir = mkdtempSync(join(tmpdir(), 'perfshim-glue-size-'));
  if (rev === '.') {
    cpSync(join(ROOT, 'glue'), join(dir, 'glue'), { recursive: true });
    cpSync(join(ROOT, 'src'), join(dir, 'src'), { recursive: true });
  } else {
    const tar = execFileSync('git', ['-C', ROOT, 'archive', rev, 'glue', 'src'], {
      maxBuffer: 1 << 28,
    });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
  }
  // This tree's formatter settings, without the VCS integration (the folder is no checkout).
  const config = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8'));
  config.vcs = { enabled: false };
  config.files = { includes: ['glue/**/*.js'] };
  config.$schema = undefined;
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
  const biome = join(ROOT, 'node_modules/.bin/biome');
  execFileSync(biome, ['format', '--write', 'glue'], { cwd: dir, stdio: 'ignore' });
  return dir;
}

function measure(rev) {
  const dir = checkout(rev);
  try {
    const count = (p) => (existsSync(p) ? countLines(readFileSync(p, 'utf8')) : 0);
    const glue = (f) => count(join(dir, 'glue', `${f}.js`));
    const top = readdirSync(join(dir, 'glue')).filter((f) => f.endsWith('.js'));
    const generated = top.filter((f) => isGenerated(readFileSync(join(dir, 'glue', f), 'utf8')));
    const sum = (list) => list.reduce((a, f) => a + glue(f), 0);
    const c = readdirSync(join(dir, 'src')).filter((f) => /\.[ch]$/.test(f));
    return {
      filing: sum(FILING),
      io: sum(IO),
      top: sum(top.map((f) => f.slice(0, -3))),
      generated: sum(generated.map((f) => f.slice(0, -3))),
      c: c.reduce((a, f) => a + count(join(dir, 'src', f)), 0),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const revs = process.argv.slice(2);
const rows = (revs.length ? revs : ['805f1d3', '.']).map((rev) => [rev, measure(rev)]);
console.log(
  "| revision | filing's 21 files | + io layer | top-level glue | of it generated | src/ (C) |",
);
console.log('|---|---:|---:|---:|---:|---:|');
for (const [rev, m] of rows)
  console.log(
    `| ${rev === '.' ? 'working tree' : rev} | ${m.filing} | ${m.filing + m.io} | ${m.top} | ${m.generated} | ${m.c} |`,
  );
