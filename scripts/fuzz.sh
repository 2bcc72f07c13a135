#!/usr/bin/env bash
# Runs every Go fuzz target for a short time each: scripts/fuzz.sh [duration] (default 10s).
# A longer run: scripts/fuzz.sh 10m
set -euo pipefail
d=${1:-10s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $f ($d)"
    go test -run '^$' -fuzz "^$f\$" -fuzztime "$d" "$pkg" >/dev/null
  done
done
