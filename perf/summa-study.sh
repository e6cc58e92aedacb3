#!/usr/bin/env bash
# The distributed GEMM's scaling study on one multi-GPU machine: weak scaling (16384 x 16384 of C
# per GPU, k = 16384) and strong scaling (n = 32768) over 1, 2 and 4 ranks, one GPU a rank, with
# NCCL and with host-staged MPI, as dated JSON. perf/plot.py makes scaling.png and scaling.csv of
# them; perf/README.md, "Several GPUs", holds the recorded run. The specs are perf/specs/summa-*.yaml.
#
#   perf/summa-study.sh OUT_DIR
#
# With TILEMM_STUDY=panels it runs weak scaling alone, over NCCL, with SUMMA's block and panel swept
# (perf/specs/summa-panels-P.yaml: block 2048 to 8192, panel 1024 to 8192; about 4
# minutes on 4 H200), and ends with a table of weak efficiency and comm_exposed per block and panel
# (OUT_DIR/panels.md).
#
# Environment:
#   TILEMM_STUDY    scaling (default) or panels (above)
#   TILEMM          the CUDA build's tilemm (default build-cuda/src/tilemm); with KOKKOS_PREFIX
#                   set and no build there, build-cuda/ is configured and built first, as
#                   perf/cuda-study.sh does, with MPI and NCCL (src/CMakeLists.txt finds NCCL in
#                   NCCL_ROOT, the CUDA toolkit or the NCCL wheel of the Python environment)
#   TILEMM_RANKS    rank counts (default "1 2 4"; weak scaling has specs for 1, 2 and 4)
#   TILEMM_COMMS    communicators of the multi-rank runs (default "nccl mpi"); one rank runs
#                   the one-process path, the baseline, once
#   TILEMM_TAG      file name tag (default: the GPU's name and count, e.g. h200x4)
#   MPIRUN          the launcher (default "mpirun --bind-to none"; Open MPI as root also needs
#                   OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0) and each rank gets 4 OpenMP threads unless
# OMP_NUM_THREADS says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 1 ]] || { sed -n '2,27p' "$0"; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
tilemm=${TILEMM:-build-cuda/src/tilemm}
specs=perf/specs/summa
day=$(date -u +%Y-%m-%d)
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} OMP_PROC_BIND=${OMP_PROC_BIND:-false}
read -r -a mpirun <<<"${MPIRUN:-mpirun --bind-to none}"
mpirun+=(-x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS -x OMP_PROC_BIND)
log() { printf '[summa-study %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo gpu)
name=$(head -n1 <<<"$gpus") name=${name#NVIDIA } name=${name%% *}
tag=${TILEMM_TAG:-${name,,}x$(wc -l <<<"$gpus")}

if [[ ! -x $tilemm && -n ${KOKKOS_PREFIX:-} ]]; then
  log "configure build-cuda/ against $KOKKOS_PREFIX"
  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$KOKKOS_PREFIX/bin/nvcc_wrapper" \
    -DCMAKE_PREFIX_PATH="$KOKKOS_PREFIX${CMAKE_PREFIX_PATH:+;${CMAKE_PREFIX_PATH//:/;}}" \
    -DTILEMM_REQUIRE_BACKENDS="CUDA;OpenMP" -DTILEMM_ENABLE_BENCHMARKS=OFF -DTILEMM_ENABLE_TESTS=OFF
  cmake --build build-cuda --parallel "${TILEMM_JOBS:-$(nproc)}"
fi
[[ -x $tilemm ]] || { log "no tilemm at $tilemm: set TILEMM or KOKKOS_PREFIX"; exit 2; }

run() {  # run FAMILY COMM RANKS: one spec on RANKS ranks -> OUT_DIR/summa-FAMILY-COMM-RANKS-...
  local spec=$specs-$1.yaml file=$out/summa-$1-$2-$3-$tag-$day
  [[ $1 != strong ]] && spec=$specs-$1-$3.yaml  # weak and panels: a spec per rank count
  [[ -f $spec ]] || { log "no spec $spec for $3 ranks"; exit 2; }
  sed "s/comm: nccl/comm: $2/" "$spec" >"$file.yaml"
  log "$1 scaling, $3 ranks, $2"
  local status=0
  "${mpirun[@]}" -n "$3" "$tilemm" "$file.yaml" --backend cuda --json "$file.json" |
    tee "$file.txt" || status=$?
  # mpirun exits 1 when SIGTERM or SIGINT reaches it, as for a failed validation, though the ranks
  # stopped with their results kept: the JSON's status tells a stopped run, which ends with 143.
  if ((status == 1)) && grep -q '"status": "interrupted"' "$file.json" 2>/dev/null; then status=143; fi
  ((status == 0)) || exit "$status"
}

if [[ ${TILEMM_STUDY:-scaling} == panels ]]; then
  for ranks in ${TILEMM_RANKS:-1 2 4}; do run panels nccl "$ranks"; done
  # Weak efficiency against the one-process result of the same kernel and precision in this call.
  python3 - "$out"/summa-panels-nccl-*-"$tag-$day".json >"$out/panels.md" <<'PY'
import json, sys
rows, base = [], {}
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        rows.append(r)
        if r["ranks"] is None:
            base[r["kernel"], r["precision"]] = r["gflops"]
print("| kernel | precision | ranks | block | panel | TFLOP/s a rank | weak efficiency | comm_exposed "
      "| SM MHz |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for r in sorted(rows, key=lambda r: (r["kernel"], r["precision"], r["ranks"] or 1, r["block"] or 0,
                                     r["panel"] or 0)):
    ranks, one = r["ranks"] or 1, base.get((r["kernel"], r["precision"]))
    eff = "%.3f" % (r["gflops"] / (ranks * one)) if one else "-"
    text = lambda key, form: "-" if r.get(key) is None else form % r[key]
    print("| %s | %s | %d | %s | %s | %.1f | %s | %s | %s |" % (
        r["kernel"], r["precision"], ranks, text("block", "%d"), text("panel", "%d"),
        r["gflops"] / ranks / 1e3, eff, text("comm_exposed", "%.3f"), text("gpu_sm_clock_mhz", "%.0f")))
PY
  cat "$out/panels.md"
  log "done: $out"
  exit 0
fi
for family in weak strong; do
  for ranks in ${TILEMM_RANKS:-1 2 4}; do
    if ((ranks == 1)); then run "$family" nccl 1; continue; fi
    for comm in ${TILEMM_COMMS:-nccl mpi}; do run "$family" "$comm" "$ranks"; done
  done
done
log "done: $out (perf/plot.py $out/*.json --out $out/plots)"
