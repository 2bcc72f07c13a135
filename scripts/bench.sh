#!/usr/bin/env bash
# make bench: measures every performance figure adi claims, in this one run on this machine, and
# prints them as markdown tables ready for docs/benchmarks.md (progress goes to stderr).
#
#   scripts/bench.sh                 the full run
#   BENCH_QUICK=1 scripts/bench.sh   a smoke run: fewer repetitions and steps (not for publishing)
#   ADI_SOAK=60s scripts/bench.sh    also run the soak test that long and print its summary
#   BENCH_LOAD=0 scripts/bench.sh    leave out the 50-session load benchmark
#   BENCH_REALREPOS_ONLY=1 scripts/bench.sh   only the "real repositories" table (seven Debian-packaged
#                                    libraries through adi's CLI; about 4 minutes), the same as
#                                    go run ./bench/cmd/adi-bench -only realrepos
#   BENCH_REALBUGS_ONLY=1 scripts/bench.sh    only the "real bugs" table (six reverted upstream fixes, each
#                                    investigated by a fixed command sequence; about a minute), the same as
#                                    go run ./bench/cmd/adi-bench -only realbugs
#   ADI_REFERENCE=/path/to/ADI/src   the reference tool for the real bugs' table (the ADI artifact's src/,
#                                    run as python3 -m ADI); without it its columns are skipped, and said so
#
# Parts alone: go run ./bench/cmd/adi-bench -h; the Go benchmarks in integration/*bench_test.go.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(-since "$start")
if [ -n "${BENCH_QUICK:-}" ]; then args+=(-quick); fi
only=()
if [ "${BENCH_REALREPOS_ONLY:-0}" != 0 ]; then only+=(realrepos); fi
if [ "${BENCH_REALBUGS_ONLY:-0}" != 0 ]; then only+=(realbugs); fi
if [ ${#only[@]} -gt 0 ]; then
  args+=(-only "$(IFS=,; echo "${only[*]}")")
  BENCH_LOAD=0
  ADI_SOAK=
fi

if [ "${BENCH_LOAD:-1}" != 0 ]; then
  echo "bench: the 50-session load benchmark (integration BenchmarkLoad50Sessions)" >&2
  if ADI_LOAD=1 go test ./integration -run '^$' -bench '^BenchmarkLoad50Sessions$' -benchtime 1x -count 1 -timeout 30m \
    >"$tmp/load.txt" 2>&1; then
    args+=(-load "$tmp/load.txt")
  else
    tail -20 "$tmp/load.txt" >&2
    echo "bench: the load benchmark failed (above); the other figures follow" >&2
  fi
fi

status=0
go run ./bench/cmd/adi-bench "${args[@]}" || status=$?

if [ -n "${ADI_SOAK:-}" ]; then
  echo "bench: soak test for $ADI_SOAK (integration TestSoak)" >&2
  if ADI_SOAK="$ADI_SOAK" go test ./integration -run '^TestSoak$' -count 1 -v -timeout 0 >"$tmp/soak.txt" 2>&1; then
    echo; echo "### Soak ($ADI_SOAK)"; echo
    grep -o 'soak: .*' "$tmp/soak.txt" | sed 's/^soak: /- /'
  else
    tail -30 "$tmp/soak.txt" >&2
    echo "bench: the soak test failed (above)" >&2
    status=1
  fi
fi
echo "bench: done in $(( $(date +%s) - start )) s" >&2
exit $status
