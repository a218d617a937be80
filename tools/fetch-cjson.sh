#!/usr/bin/env bash
# Fetch cJSON 1.7.15 from Debian's source package into third_party/cjson, verify the upstream
# tarball by sha256, apply Debian's patch series (its security fixes), and keep only cJSON.c/.h.
# Third-party source is never committed (third_party/ is ignored).
set -euo pipefail
want_orig=5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2
top=$(pwd)
dest=${1:-third_party/cjson}
case "$dest" in /*) ;; *) dest="$top/$dest";; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get source --download-only cjson >/dev/null 2>&1; then
  # The source list may lack deb-src lines: add them for the same suites (needs root).
  if [ "$(id -u)" = 0 ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      | grep -v security > /etc/apt/sources.list.d/perfshim-src.sources
    apt-get update -qq >/dev/null
  fi
  apt-get source --download-only cjson >/dev/null
fi
orig=$(ls cjson_1.7.15.orig.tar.gz)
got=$(sha256sum "$orig" | cut -d' ' -f1)
if [ "$got" != "$want_orig" ]; then
  echo "fetch-cjson: sha256 mismatch for $orig: $got" >&2
  exit 1
fi
tar xzf "$orig"
tar xJf cjson_1.7.15-*.debian.tar.xz
cd cJSON-1.7.15
if [ -f ../debian/patches/series ]; then
  while read -r p; do
    case "$p" in ''|'#'*) continue;; esac
    patch -p1 -s < "../debian/patches/$p"
  done < ../debian/patches/series
fi
mkdir -p "$dest"
cp "$work/cJSON-1.7.15/cJSON.c" "$work/cJSON-1.7.15/cJSON.h" "$dest/"
echo "cJSON 1.7.15 (+ Debian patches) in $dest"
