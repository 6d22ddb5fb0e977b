#!/usr/bin/env bash
# Prints one line per output of `clustersim run` on every bundled and validation scenario:
# the scenario, the output (stdout, summary, csv, trace) and its SHA-256. Run it before and
# after a change that must not change behaviour and compare the two listings with diff.
# Traces are hashed through a FIFO (the run writes into it, sha256sum reads from it), so the
# gigabyte traces of the largest scenarios never touch the disk.
#
#   scripts/golden-outputs.sh > before.txt    # on the old commit
#   scripts/golden-outputs.sh > after.txt     # on the new one
#   diff before.txt after.txt
#
# Extra arguments are passed to every run (for example --trace-format=perfetto). Set
# GOLDEN_SCENARIOS to a space-separated list of files to check only those, and GOLDEN_COMMAND to
# run another build (for example "java -jar /tmp/old.jar") instead of ./clustersim.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scenarios=${GOLDEN_SCENARIOS:-$(ls scenarios/*.yaml scenarios/validation/*/*.yaml | sort)}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for s in $scenarios; do
  rm -f "$work"/*
  mkfifo "$work/trace"
  sha256sum < "$work/trace" > "$work/trace.sha" &
  reader=$!
  set +e
  ${GOLDEN_COMMAND:-./clustersim} run --allow-oom --summary="$work/summary.json" --csv="$work/gpus.csv" \
    --trace="$work/trace" "$@" "$s" > "$work/stdout" 2> "$work/stderr"
  rc=$?
  set -e
  # A run that failed before opening the trace leaves the reader waiting: open the FIFO once.
  if kill -0 "$reader" 2>/dev/null; then : > "$work/trace" || true; fi
  wait "$reader" || true
  # The printed output paths name the temporary folder and one line gives the wall time: write
  # the folder as WORK and drop the wall-time line before hashing.
  grep -v -e "^simulated .* events in .* s$" "$work/stdout" | sed "s|$work|WORK|g" > "$work/stdout.kept" || true
  echo "$s exit $rc"
  echo "$s stdout $(sha256sum < "$work/stdout.kept" | cut -c1-64)"
  for f in summary.json gpus.csv; do
    if [ -f "$work/$f" ]; then echo "$s $f $(sha256sum < "$work/$f" | cut -c1-64)"; else echo "$s $f absent"; fi
  done
  echo "$s trace $(cut -c1-64 "$work/trace.sha")"
done
