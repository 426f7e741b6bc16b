#!/usr/bin/env bash
# The library's face: the exported identifiers of the module's packages
# that are neither internal nor main (top-level funcs, types, vars and
# consts, and the exported methods of exported types, each once however
# many platform files declare it), package by package, and their type
# aliases, as cmd/corepin's TestPublicSurface counts them with go/ast; it
# fails past its bound.
#
#   bench/exported.sh          the counts
#   bench/exported.sh -names   every identifier too
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
[ "${1:-}" = -names ] && args=(-args -surface)
go test ./cmd/corepin -count=1 -run '^TestPublicSurface$' -v "${args[@]}" |
  sed -n 's/^ *surface_test.go:[0-9]*: //p'
