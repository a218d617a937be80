// The cJSON fetch on a stock Debian 12 machine: deb-src entries are derived into a private apt
// configuration from the machine's `deb` sources (both stanzas of the stock deb822 file kept
// whole), and the machine's own apt configuration is never written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  mkdtempSync,
  writeFileSync,
  readFileSync,
  readdirSync,
  statSync,
  existsSync,
  rmSync,
  copyFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const top = new URL('../..', import.meta.url).pathname;
const srcList = (dir, list = '/dev/null') =>
  execFileSync('bash', [join(top, 'tools/apt-src-list.sh')], {
    env: { ...process.env, APT_SOURCES_DIR: dir, APT_SOURCES_LIST: list },
    encoding: 'utf8',
  });
const stanzas = (text) =>
  text
    .split(/\n\s*\n/)
    .map((s) => s.trim())
    .filter(Boolean);

// The layout of Debian 12's stock /etc/apt/sources.list.d/debian.sources (hosts replaced).
const STOCK = `Types: deb
URIs: http://mirror.invalid/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.invalid/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

test('the stock two-stanza deb822 file gives two complete deb-src stanzas', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-apt-'));
  writeFileSync(join(dir, 'debian.sources'), STOCK);
  const out = stanzas(srcList(dir));
  assert.equal(out.length, 2);
  for (const s of out) {
    assert.match(s, /^Types: deb-src$/m);
    assert.match(
      s,
      /^URIs: http:\/\/mirror\.invalid\/debian(-security)?$/m,
      'every stanza keeps its URIs',
    );
    assert.match(s, /^Suites: \S/m);
    assert.match(s, /^Components: main$/m);
    assert.match(s, /^Signed-By: \/usr\/share\/keyrings\/debian-archive-keyring\.gpg$/m);
  }
  assert.match(out[1], /bookworm-security/);
  rmSync(dir, { recursive: true });
});

test('comments inside stanzas, continuation lines, disabled and third-party stanzas', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-apt-'));
  writeFileSync(
    join(dir, 'debian.sources'),
    `Types: deb
# a comment inside the stanza, as the snapshot images have
URIs: http://mirror.invalid/debian
Suites: bookworm
 bookworm-updates
Components: main contrib

Types: deb
Enabled: no
URIs: http://mirror.invalid/debian
Suites: trixie
Components: main
`,
  );
  writeFileSync(
    join(dir, 'vendor.sources'),
    'Types: deb\nURIs: https://vendor.invalid/node_20.x\nSuites: nodistro\nComponents: main\n',
  );
  writeFileSync(
    join(dir, 'old.sources.disabled'),
    'Types: deb\nURIs: http://mirror.invalid/debian\nSuites: sid\nComponents: main\n',
  );
  const out = stanzas(srcList(dir));
  assert.equal(out.length, 1, out.join('\n---\n'));
  assert.match(out[0], /^Suites: bookworm bookworm-updates$/m);
  assert.match(out[0], /^Components: main contrib$/m);
  assert.doesNotMatch(out[0], /Signed-By/);
  rmSync(dir, { recursive: true });
});

test('one-line sources.list entries, with options', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-apt-'));
  const list = join(dir, 'main-sources');
  writeFileSync(
    list,
    [
      '# deb http://mirror.invalid/debian sid main',
      'deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://mirror.invalid/debian bookworm main',
      'deb-src http://mirror.invalid/debian bookworm main',
      'deb https://vendor.invalid/apt cloud-sdk main',
    ].join('\n'),
  );
  const out = stanzas(srcList(dir, list));
  assert.equal(out.length, 1);
  assert.equal(
    out[0],
    'Types: deb-src\nURIs: http://mirror.invalid/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg',
  );
  rmSync(dir, { recursive: true });
});

/** A digest of every file under /etc/apt (names, sizes and contents). */
function aptDigest(dir = '/etc/apt') {
  const h = createHash('sha256');
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      h.update(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

test("fetching cJSON from a copy of this machine's deb sources leaves /etc/apt as it was", {
  timeout: 300_000,
}, () => {
  const machine = '/etc/apt/sources.list.d/debian.sources';
  assert.ok(existsSync(machine), 'a Debian 12 machine has a deb822 debian.sources');
  const dir = mkdtempSync(join(tmpdir(), 'ps-apt-'));
  copyFileSync(machine, join(dir, 'debian.sources'));
  const before = aptDigest();
  const dest = join(dir, 'cjson');
  execFileSync('bash', [join(top, 'tools/fetch-cjson.sh'), dest], {
    env: { ...process.env, APT_SOURCES_DIR: dir, APT_SOURCES_LIST: '/dev/null' },
    stdio: 'pipe',
  });
  assert.match(
    readFileSync(join(dest, 'cJSON.h'), 'utf8'),
    /#define CJSON_VERSION_MINOR 7\s+#define CJSON_VERSION_PATCH 15/,
  );
  assert.ok(statSync(join(dest, 'cJSON.c')).size > 50_000);
  assert.equal(aptDigest(), before, "the machine's apt configuration is unchanged");
  // apt itself still reads its configuration (a malformed entry would fail here).
  execFileSync('apt-cache', ['policy'], { stdio: 'pipe' });
  rmSync(dir, { recursive: true });
});
