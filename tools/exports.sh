#!/usr/bin/env bash
# Print the wasm export list (comma-separated, with emcc's leading underscore) from the PS_API
# declarations in the given headers: the headers are the ABI.
sed -n 's/^PS_API[^(]*[ *]\(ps_[a-z0-9_]*\)(.*/_\1/p' "$@" | sort -u | paste -sd, -
