#!/usr/bin/env node
// Non-blank, non-comment lines per file (C and JS), with totals per folder:
//   node tools/count-lines.mjs [file-or-dir ...]   (default: src glue)
// A line counts when any code is left on it after // and /* */ comments are removed; comment
// markers inside string and template literals are code. Regex literals are not parsed (none in
// this tree holds a comment marker).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function countLines(text) {
  let n = 0;
  let code = false;
  let inBlock = false;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      if (code) n++;
      code = false;
      if (quote !== '`') quote = '';
      continue;
    }
    if (inBlock) {
      if (c === '*' && text[i + 1] === '/') {
        inBlock = false;
        i++;
      }
      continue;
    }
    if (quote) {
      code = true;
      if (c === '\\') i += text[i + 1] === '\n' ? 0 : 1;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      inBlock = true;
      i++;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    if (!/\s/.test(c)) code = true;
  }
  return code ? n + 1 : n;
}

const isSource = (f) => /\.(c|h|js|mjs)$/.test(f);

function files(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((f) => {
      const p = join(path, f);
      return statSync(p).isDirectory() || isSource(f) ? files(p) : [];
    });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  for (const root of args.length ? args : ['src', 'glue']) {
    let total = 0;
    for (const f of files(root)) {
      const n = countLines(readFileSync(f, 'utf8'));
      total += n;
      console.log(`${String(n).padStart(6)}  ${f}`);
    }
    console.log(`${String(total).padStart(6)}  ${root} (total)`);
  }
}
