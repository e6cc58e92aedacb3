#!/usr/bin/env bash
# Times two tilemm binaries against each other on one spec, alternately (A B A B ...), so that both
# see the same machine state (clock, power cap, temperature), and prints each result's ratio B / A.
#
#   perf/ab.sh TILEMM_A TILEMM_B SPEC OUT_DIR [ROUNDS] [-- tilemm options...]
#
# Writes OUT_DIR/ab-{a,b}-ROUND.json (the CLI's own result files) and OUT_DIR/ab-summary.txt:
# one line per result and kernel with A's and B's TFLOP/s of every round and the median ratio.
# ROUNDS defaults to 2. Options after -- go to both runs (e.g. --backend cuda).
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,10p' "$0"; exit 2; }
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
python3 - "$out" "$rounds" <<'EOF' | tee "$out/ab-summary.txt"
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def key(r):
    return (r["name"], r["kernel"], r["precision"], r["layout"], r["trans_a"], r["trans_b"],
            r["m"], r["n"], r["k"], r["tile"])
def load(side, rnd):
    with open(f"{out}/ab-{side}-{rnd}.json") as f:
        return {key(r): r["gflops"] / 1000 for r in json.load(f)["results"]}
a = [load("a", i) for i in range(1, rounds + 1)]
b = [load("b", i) for i in range(1, rounds + 1)]
print(f"{'kernel':15} {'prec':6} {'m x n x k':20} {'tile':16} {'A TFLOP/s':>24} {'B TFLOP/s':>24} B/A")
for k in a[0]:
    ta = [r[k] for r in a if k in r]
    tb = [r[k] for r in b if k in r]
    ratio = statistics.median(y / x for x, y in zip(ta, tb)) if ta and tb else float("nan")
    shape = f"{k[6]}x{k[7]}x{k[8]}"
    fa = " / ".join(f"{t:.2f}" for t in ta)
    fb = " / ".join(f"{t:.2f}" for t in tb)
    print(f"{k[1]:15} {k[2]:6} {shape:20} {str(k[9]):16} {fa:>24} {fb:>24} {ratio:.3f}")
EOF
