#!/usr/bin/env bash
# Fails when regenerating the interpreter symbols (internal/symbols/gen_*.go,
# `go generate ./internal/symbols`) would change anything. Regenerates into a
# temporary directory and compares; the tree is not modified. (The notebooks
# are not generated: they are their own source, checked by
# scripts/check-notebooks.sh, which scripts/test.sh runs.)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./internal/symbols/gen -dir "$tmp" >"$tmp/gen.log" 2>&1 || { cat "$tmp/gen.log" >&2; exit 1; }
# The standard library's tables, once per supported toolchain (as the
# go:generate lines of internal/symbols/symbols.go).
mkdir -p "$tmp/stdlib"
GOTOOLCHAIN=go1.26.8 go run ./internal/symbols/gen -std -dir "$tmp/stdlib" >"$tmp/std126.log" 2>&1 || { cat "$tmp/std126.log" >&2; exit 1; }
GOTOOLCHAIN=go1.27.3 go run ./internal/symbols/gen -std -latest -dir "$tmp/stdlib" >"$tmp/std127.log" 2>&1 || { cat "$tmp/std127.log" >&2; exit 1; }
status=0
for f in "$tmp"/stdlib/go1_*.go; do
  b=$(basename "$f")
  if ! cmp -s "$f" "internal/symbols/stdlib/$b"; then
    echo "stale or missing: internal/symbols/stdlib/$b" >&2
    diff -u "internal/symbols/stdlib/$b" "$f" 2>/dev/null | head -20 >&2 || true
    status=1
  fi
done
for f in internal/symbols/stdlib/go1_*.go; do
  if [ ! -e "$tmp/stdlib/$(basename "$f")" ]; then
    echo "no longer generated: $f" >&2
    status=1
  fi
done
for f in "$tmp"/gen_*.go; do
  [ -e "$f" ] || continue
  b=$(basename "$f")
  if ! cmp -s "$f" "internal/symbols/$b"; then
    echo "stale or missing: internal/symbols/$b" >&2
    diff -u "internal/symbols/$b" "$f" 2>/dev/null | head -20 >&2 || true
    status=1
  fi
done
for f in internal/symbols/gen_*.go; do
  [ -e "$f" ] || continue
  if [ ! -e "$tmp/$(basename "$f")" ]; then
    echo "no longer generated: $f" >&2
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "interpreter symbols are stale: run 'go generate ./internal/symbols' and commit the result" >&2
  grep '^skip' "$tmp/gen.log" >&2 || true
fi

exit "$status"
