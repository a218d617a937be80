// tools/count-lines.mjs: blank lines and comments do not count, comment markers inside strings do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countLines } from '../../tools/count-lines.mjs';

test('blank lines, line comments and block comments are not counted', () => {
  const js = ['// header', '', 'const a = 1; // trailing', '/* one', '   two */', '  ', 'f();'];
  assert.equal(countLines(js.join('\n')), 2);
  assert.equal(countLines('int x; /* a\n b */ int y;\n'), 2);
});

test('comment markers inside string and template literals are code', () => {
  assert.equal(countLines('const u = \'http://x\';\nconst s = "/* no */";\n'), 2);
  assert.equal(countLines('const t = `a\n// still the template\n`;'), 3);
  assert.equal(countLines("const q = 'it\\'s'; // c\n"), 1);
});
