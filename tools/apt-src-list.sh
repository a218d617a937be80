#!/usr/bin/env bash
# Print deb822 `deb-src` stanzas for the Debian archives this machine's apt uses for `deb`
# packages (deb822 *.sources and one-line *.list files alike), for a private apt configuration
# (tools/fetch-cjson.sh). Reads only; writes nothing. Stanzas that are disabled, not of type
# deb, or not a Debian archive (third-party repositories carry no Debian source packages) are
# skipped. APT_SOURCES_DIR (default /etc/apt/sources.list.d) and APT_SOURCES_LIST (default
# /etc/apt/sources.list) say where to read.
set -euo pipefail
dir=${APT_SOURCES_DIR:-/etc/apt/sources.list.d}
list=${APT_SOURCES_LIST:-/etc/apt/sources.list}
debian_uri='/debian(-security|-ports)?(/[0-9TZ]+)?/?$'

deb822() {
  # One stanza per blank-line-separated block; continuation lines (leading space) join the
  # field before them; comments are dropped.
  awk -v re="$debian_uri" '
    function flush(   t, ok, i, n, u, k) {
      if (!("uris" in f)) { delete f; return }
      t = " " f["types"] " "
      if (t !~ / deb / || tolower(f["enabled"]) == "no") { delete f; return }
      n = split(f["uris"], u, /[ \t]+/); ok = 0
      for (i = 1; i <= n; i++) if (u[i] ~ re) ok = 1
      if (!ok) { delete f; return }
      print "Types: deb-src"
      print "URIs: " f["uris"]
      print "Suites: " f["suites"]
      if ("components" in f) print "Components: " f["components"]
      if ("signed-by" in f) print "Signed-By: " f["signed-by"]
      print ""
      delete f
    }
    /^#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^[ \t]/ { if (key != "") { v = $0; sub(/^[ \t]+/, "", v); f[key] = f[key] " " v }; next }
    {
      key = tolower($0); sub(/:.*/, "", key)
      v = $0; sub(/^[^:]*:[ \t]*/, "", v)
      f[key] = v
    }
    END { flush() }
  ' "$1"
}

oneline() {
  # deb [options] uri suite [components...]
  awk -v re="$debian_uri" '
    /^[ \t]*deb[ \t]/ {
      line = $0; sub(/^[ \t]*deb[ \t]+/, "", line); sub(/#.*/, "", line)
      signed = ""
      if (line ~ /^\[/) {
        opts = line; sub(/\].*/, "", opts); sub(/^\[/, "", opts)
        line = substr(line, index(line, "]") + 1)
        n = split(opts, o, /[ \t]+/)
        for (i = 1; i <= n; i++) if (o[i] ~ /^signed-by=/) { signed = o[i]; sub(/^signed-by=/, "", signed) }
      }
      n = split(line, w, /[ \t]+/); j = 0
      for (i = 1; i <= n; i++) if (w[i] != "") a[++j] = w[i]
      if (j < 2 || a[1] !~ re) next
      print "Types: deb-src"; print "URIs: " a[1]; print "Suites: " a[2]
      comps = ""; for (i = 3; i <= j; i++) comps = comps (comps == "" ? "" : " ") a[i]
      if (comps != "") print "Components: " comps
      if (signed != "") print "Signed-By: " signed
      print ""
    }
  ' "$1"
}

shopt -s nullglob
for f in "$dir"/*.sources; do deb822 "$f"; done
for f in "$list" "$dir"/*.list; do [ -f "$f" ] && oneline "$f"; done
exit 0
