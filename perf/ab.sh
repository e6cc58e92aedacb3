#!/usr/bin/env bash
# Times two tilemm binaries against each other on one spec, alternately (A B A B ...), so that both
# see the same machine state (clock, power cap, temperature), and prints each result's ratio B / A.
#
#   perf/ab.sh TILEMM_A TILEMM_B SPEC OUT_DIR [ROUNDS] [-- tilemm options...]
#
# Writes OUT_DIR/ab-{a,b}-ROUND.json (the CLI's own result files), then compares them with
# perf/compare.py, each side's rounds pooled: OUT_DIR/ab-summary.txt (its table: each result's
# GFLOP/s and spread on both sides, the ratio B / A, and whether it is within noise),
# OUT_DIR/compare.csv and OUT_DIR/compare.png. ROUNDS defaults to 2. Options after -- go to both
# runs (e.g. --backend cuda).
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,11p' "$0"; exit 2; }
a=$1 b=$2 spec=$3 out=$4
shift 4
rounds=2
if [[ $# -gt 0 && $1 != -- ]]; then rounds=$1; shift; fi
[[ ${1:-} == -- ]] && shift
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for side in a b; do
    bin=$a
    [[ $side == b ]] && bin=$b
    echo "[ab] round $round, $side: $bin" >&2
    "$bin" "$spec" --quiet --json "$out/ab-$side-$round.json" "$@"
  done
done
# Each side's rounds pooled: perf/compare.py's table of B against A, with its CSV and plot.
sides=()
for side in a b; do
  files=$(for round in $(seq 1 "$rounds"); do printf '%s,' "$out/ab-$side-$round.json"; done)
  sides+=("${files%,}")
done
python3 "$(dirname "$0")/compare.py" "${sides[@]}" --out "$out" | tee "$out/ab-summary.txt"
