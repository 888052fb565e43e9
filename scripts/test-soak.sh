#!/usr/bin/env bash
# Runs `npm test` (or the given files) several times in a row beside a CPU load, and records each
# run: the evidence for "the suite is deterministic on a loaded machine" (issue 13).
#
#   bash scripts/test-soak.sh [RUNS [LOAD_CPUS]] [-- test files...]
#
# RUNS defaults to 20, LOAD_CPUS (busy cores from stress-ng) to 1. Stops at the first red run.
# Each run's output is kept in .tmp/soak/run-N.log; .tmp/soak/summary.log has one line a run.
# DATABASE_URL / REDIS_URL select the backend, as for npm test.
set -euo pipefail
runs=20
cpus=1
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then cpus=$1; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
command -v stress-ng > /dev/null || { echo "stress-ng is not installed (apt-get install stress-ng)" >&2; exit 2; }
out=.tmp/soak
mkdir -p "$out"
# Which code the runs test: the commit, marked when the tree differs from it.
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD || commit="$commit+changes"
stress-ng --cpu "$cpus" --timeout 24h > /dev/null 2>&1 &
load=$!
trap 'kill $load 2> /dev/null || true' EXIT
for i in $(seq 1 "$runs"); do
  started=$(date +%s)
  status=0
  npm test -- "$@" > "$out/run-$i.log" 2>&1 || status=$?
  line="run $i at $commit, $(date -u +%Y-%m-%dT%H:%MZ): exit $status in $(( $(date +%s) - started )) s, load $(cut -d' ' -f1 /proc/loadavg): $(tail -n 1 "$out/run-$i.log")"
  echo "$line" | tee -a "$out/summary.log"
  [ "$status" -eq 0 ] || exit "$status"
done
