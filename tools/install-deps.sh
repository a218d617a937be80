#!/usr/bin/env bash
# Install what building and testing need, when it is missing: Debian's emscripten (emcc 3.1.6),
# the three browser engines the browser suites drive (chromium; firefox-esr; WebKitGTK's
# MiniBrowser with webkit2gtk-driver, under xvfb), a font for their pages, a C compiler,
# patch/xz/dpkg-dev (for cJSON's source package), Go (for `go tool pprof`), then npm packages.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
# Versions of fetch-cjson.sh before the private apt configuration wrote this file, malformed on
# a stock machine (it broke every apt-get): take it away so apt works again.
old_src=/etc/apt/sources.list.d/perfshim-src.sources
if [ -f "$old_src" ] && [ "$(id -u)" = 0 ]; then
  echo "install-deps: removing $old_src (left by an older perfshim set-up)"
  rm -f "$old_src"
fi
# --npm-only: just the npm packages (what `make demo` needs), no Debian packages.
npm_only=0
[ "${1:-}" = "--npm-only" ] && npm_only=1
need=()
[ "$npm_only" = 1 ] || {
command -v emcc >/dev/null 2>&1 || need+=(emscripten)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v firefox-esr >/dev/null 2>&1 || need+=(firefox-esr)
command -v WebKitWebDriver >/dev/null 2>&1 || need+=(webkit2gtk-driver)
# MiniBrowser comes with the WebKitGTK library (a dependency of webkit2gtk-driver).
ls /usr/lib/*/webkit2gtk-4.1/MiniBrowser >/dev/null 2>&1 || need+=(libwebkit2gtk-4.1-0)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
# A font, or the headless browsers render the demo's text as boxes.
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v patch >/dev/null 2>&1 || need+=(patch)
command -v xz >/dev/null 2>&1 || need+=(xz-utils)
command -v dpkg-source >/dev/null 2>&1 || need+=(dpkg-dev)
command -v make >/dev/null 2>&1 || need+=(make)
# libFuzzer's runtime for the fuzz targets (clang-14 itself comes with emscripten)
[ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
command -v node >/dev/null 2>&1 || need+=(nodejs npm)
# `go tool pprof`, the reference pprof reader the field and pprof tests run (Debian's Go 1.19)
command -v go >/dev/null 2>&1 || need+=(golang-go)
}
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing ${need[*]}; run as root or: sudo apt-get install ${need[*]}" >&2
    exit 1
  fi
  echo "== apt-get install ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ -L node_modules ]; then
  echo "install-deps: node_modules is a symlink (shared with another checkout); not running npm install" >&2
  exit 0
fi
# Only when a package of package.json is missing (a lockfile's mtime says nothing in a fresh
# clone or worktree).
if ! node -e 'const p = require("./package.json");
  const names = Object.keys({ ...p.dependencies, ...p.devDependencies });
  process.exit(names.every((n) => require("fs").existsSync("node_modules/" + n + "/package.json")) ? 0 : 1)'; then
  # `npm install`, not `npm ci`: the lock pins every version, but Biome's optional packages for
  # other platforms are absent from the registry these machines reach, so npm cannot record them
  # and `npm ci` refuses a lock without them. `npm install` installs the locked versions and
  # skips what this platform does not use; the lockfile is restored so the tree stays clean.
  echo "== npm install (locked versions)"
  cp package-lock.json "${TMPDIR:-/tmp}/perfshim-lock.$$"
  npm install --no-audit --no-fund
  cp "${TMPDIR:-/tmp}/perfshim-lock.$$" package-lock.json && rm -f "${TMPDIR:-/tmp}/perfshim-lock.$$"
fi
