#!/usr/bin/env bash
# Fetch cJSON 1.7.15 from Debian's source package into third_party/cjson, verify the upstream
# tarball by sha256, apply Debian's patch series (its security fixes), and keep only cJSON.c/.h.
# Third-party source is never committed (third_party/ is ignored).
#
# The machine's apt configuration is never written: a private apt configuration in a temp dir
# (its own source list, lists dir and cache) is derived from the machine's `deb` sources with
# tools/apt-src-list.sh, so a stock Debian 12 machine with no deb-src lines works and its apt
# keeps working after. APT_SOURCES_DIR / APT_SOURCES_LIST override where the sources are read
# (the tests point them at copies).
set -euo pipefail
want_orig=5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-third_party/cjson}
case "$dest" in /*) ;; *) dest="$(pwd)/$dest";; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

apt_dir="$work/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts" "$apt_dir/prefs"
bash "$top/tools/apt-src-list.sh" > "$apt_dir/parts/perfshim-src.sources"
if ! grep -q '^URIs:' "$apt_dir/parts/perfshim-src.sources"; then
  echo "fetch-cjson: no Debian 'deb' sources found to derive deb-src entries from" >&2
  exit 1
fi
apt_opts=(
  -o "Dir::Etc::SourceList=/dev/null"
  -o "Dir::Etc::SourceParts=$apt_dir/parts"
  -o "Dir::Etc::PreferencesParts=$apt_dir/prefs"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache"
  -o "Dir::Cache::pkgcache="
  -o "Dir::Cache::srcpkgcache="
  -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=root"
)
apt-get "${apt_opts[@]}" update -qq >"$work/update.log" 2>&1 || {
  cat "$work/update.log" >&2
  echo "fetch-cjson: apt-get update with the private configuration failed" >&2
  exit 1
}
cd "$work"
apt-get "${apt_opts[@]}" source --download-only cjson >"$work/source.log" 2>&1 || {
  cat "$work/source.log" >&2
  echo "fetch-cjson: apt-get source cjson failed" >&2
  exit 1
}
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
echo "cJSON 1.7.15 ($(ls "$work"/cjson_1.7.15-*.dsc | sed 's/.*cjson_//; s/\.dsc$//'), Debian patches applied) in $dest"
