#!/usr/bin/env bash
# Runs one spec on every GPU of a machine at once, each GPU a part of its problems, so that a
# machine of several GPUs runs a sweep in a fraction of the time. GPU i runs the problems named in
# the i-th LIST (tilemm's --problems), as a process of its own that sees that GPU alone and a share
# of the host's cores, and writes OUT_DIR/<spec>-gpu<i>-<date>.json. Each process times its kernels
# beside the vendor's on the same GPU, so each file's ratios stand alone.
#
#   perf/gpus-split.sh TILEMM OUT_DIR SPEC LIST...
#   perf/gpus-split.sh build-cuda/src/tilemm out inputs/ops-layouts-gpu.yaml \
#     large-nn,wide-nn large-nt,wide-nt large-tn,wide-tn large-tt,wide-tt
#
# The exit status is the first failing process's (1: a result failed validation).
set -uo pipefail
[[ $# -ge 4 ]] || { sed -n '2,12p' "$0"; exit 2; }
tilemm=$1 out=$2 spec=$3
shift 3
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
if (($# > gpus)); then
  echo "gpus-split.sh: $# lists of problems for $gpus GPUs" >&2
  exit 2
fi
mkdir -p "$out"
name=$(basename "$spec" .yaml)-$(date -u +%Y-%m-%d)
threads=$(($(nproc) / $#))
pids=()
i=0
for list in "$@"; do
  CUDA_VISIBLE_DEVICES=$i OMP_NUM_THREADS=$threads OMP_PROC_BIND=false \
    "$tilemm" "$spec" --backend cuda --problems "$list" --quiet --json "$out/$name-gpu$i.json" \
    >"$out/$name-gpu$i.txt" 2>&1 &
  pids+=($!)
  i=$((i + 1))
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || { s=$?; ((status)) || status=$s; }
done
exit "$status"
