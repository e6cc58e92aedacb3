#!/bin/sh
# Runs one libFuzzer target for CTest (tests/fuzz/CMakeLists.txt).
#
#   run_fuzzer.sh FUZZER DICT WORKDIR TIMEOUT SECONDS SEED...
#
# SEED: files or folders of seed files. SECONDS 0 runs every seed once (the regression cases);
# otherwise the fuzzer mutates a fresh copy of the seeds in WORKDIR/corpus for SECONDS. TIMEOUT is
# libFuzzer's -timeout: one input running longer is a hang. Any crash, sanitizer report, leak,
# hang, or allocation past libFuzzer's memory limit (-rss_limit_mb, 2048 MB) fails the test; the
# input that did it is kept in WORKDIR/artifacts/.
set -eu
fuzzer=$1 dict=$2 work=$3 timeout=$4 seconds=$5
shift 5

rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts" "$work/tmp"
for seed in "$@"; do
  if [ -d "$seed" ]; then
    find "$seed" -maxdepth 1 -type f -exec cp {} "$work/corpus/" \;
  else
    cp "$seed" "$work/corpus/"
  fi
done
seeds=$(find "$work/corpus" -type f | wc -l)
[ "$seeds" -gt 0 ] || { echo "FAIL: no seed files in: $*"; exit 1; }

# The fuzzers' scratch files (a spec fuzzer input names other files relative to its own) stay here.
TMPDIR=$work/tmp
export TMPDIR
# UBSan reports with a stack, and (built with -fno-sanitize-recover) aborts: libFuzzer sees a crash.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS

set -- -timeout="$timeout" -artifact_prefix="$work/artifacts/" -print_final_stats=1
status=0
if [ "$seconds" -eq 0 ]; then
  echo "running $seeds seed and regression files once"
  "$fuzzer" "$@" "$work"/corpus/* >"$work/log" 2>&1 || status=$?
else
  echo "fuzzing for $seconds s from $seeds seeds"
  # -max_len: mutated inputs stay small and fast; a longer seed (a regression case) is cut to it
  # here, and runs whole in the regressions test.
  "$fuzzer" "$@" -dict="$dict" -max_len=8192 -max_total_time="$seconds" "$work/corpus" \
    >"$work/log" 2>&1 || status=$?
fi
if [ "$status" -ne 0 ]; then
  tail -n 60 "$work/log"
  echo "FAIL: $(basename "$fuzzer") exited with status $status; the input that failed:"
  if [ "$seconds" -eq 0 ]; then
    grep '^Running: ' "$work/log" | tail -n 1  # a seed file, run as it is
  else
    ls -l "$work/artifacts"
    echo "(fix the bug, then add that input to tests/fuzz/corpus/ as a regression case)"
  fi
  exit 1
fi
grep -E '^(stat::|Done|#[0-9]+.*DONE)' "$work/log" || true
echo "ok: corpus now $(find "$work/corpus" -type f | wc -l) files"
