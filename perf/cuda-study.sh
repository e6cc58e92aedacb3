#!/usr/bin/env bash
# Builds tilemm on a CUDA machine against a Kokkos with CUDA and OpenMP, then checks and measures it:
# the test suite on both backends, compute-sanitizer memcheck and racecheck on the team-scratch
# kernels, the compiler's register report, and the recorded studies as dated JSON.
#
#   perf/cuda-study.sh KOKKOS_PREFIX OUT_DIR [STEP...]
#
# Steps (default: build test sanitize ptxas study):
#   build     configure build-cuda/ with KOKKOS_PREFIX/bin/nvcc_wrapper and build everything
#   test      ctest on every backend of the build                      -> OUT_DIR/ctest.log
#   sanitize  memcheck and racecheck on tests/cli/specs/sanitize*.yaml  -> OUT_DIR/sanitize*.log
#   ptxas     registers, stack and spills of each kernel                -> OUT_DIR/ptxas.txt
#   tune      inputs/tune-register-tiled.yaml on the GPU                -> OUT_DIR/tune-<date>.json
#   study     inputs/square-gpu.yaml and inputs/small-skinny.yaml       -> OUT_DIR/*-<date>.json
#   ops       inputs/ops-layouts-gpu.yaml: every op and layout          -> OUT_DIR/ops-layouts-<date>.json
#   tiles     inputs/tensor-tiles-gpu.yaml: tensor-tiled's tiles         -> OUT_DIR/tiles-<date>.json
#   ozaki     inputs/ozaki-gpu.yaml: ozaki beside DGEMM                -> OUT_DIR/ozaki-gpu-<date>.json
#   cpu       inputs/cpu-vs-blas.yaml on the host's OpenMP backend      -> OUT_DIR/cpu-vs-blas-<date>.json
#   bench     tilemm-bench on the GPU, n = 1024 and 4096                -> OUT_DIR/bench-<date>.json
#   kernels   the CUDA kernel tests and the fragment tests, without ctest -> OUT_DIR/<test>.log
#   profile   Nsight Compute on tensor-tiled in each orientation      -> OUT_DIR/profile-<date>.txt
#   summa-ops perf/specs/summa-ops-4.yaml on 4 ranks, every op         -> OUT_DIR/summa-ops-<date>.json
#
# KOKKOS_PREFIX holds Kokkos and Kokkos Kernels built with Kokkos_ENABLE_CUDA, Kokkos_ENABLE_OPENMP,
# the GPU's Kokkos_ARCH_* and Kokkos Kernels' cuBLAS TPL (see the README). Other packages come from
# CMAKE_PREFIX_PATH. Environment: TILEMM_JOBS (default nproc), TILEMM_TARGETS (what the build
# step builds, default everything; e.g. "tilemm tilemm_kernel_tests_cuda tilemm_fragment_tests"),
# TILEMM_TAG (file name tag, default the GPU's name, e.g. h200), TILEMM_GIT_HASH (the hash to
# report when the tree's .git is absent).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 2 ]] || { sed -n '2,29p' "$0"; exit 2; }
prefix=$(cd "$1" && pwd) out=$2
shift 2
steps=("$@")
((${#steps[@]})) || steps=(build test sanitize ptxas study)
mkdir -p "$out"
out=$(cd "$out" && pwd)
jobs=${TILEMM_JOBS:-$(nproc)}
day=$(date -u +%Y-%m-%d)
build=build-cuda
tilemm=$build/src/tilemm
tests=("$build/tests/tilemm_kernel_tests_cuda" "$build/tests/tilemm_fragment_tests")
log() { printf '[cuda-study %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
gpu_tag() {
  local name
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
  name=${name#NVIDIA }
  name=${name%% *}
  echo "${name,,}"
}
tag=${TILEMM_TAG:-$(gpu_tag)}
tag=${tag:-gpu}

run_spec() {  # run_spec NAME SPEC [tilemm options...]: the CLI's JSON and CSV into OUT_DIR
  local name=$1 spec=$2
  shift 2
  log "$name: $spec"
  "$tilemm" "$spec" --json "$out/$name-$tag-$day.json" --csv "$out/$name-$tag-$day.csv" "$@" \
    | tee "$out/$name-$tag-$day.txt"
}

for step in "${steps[@]}"; do
  case $step in
    build)
      log "configure against $prefix"
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" \
        -DCMAKE_PREFIX_PATH="$prefix${CMAKE_PREFIX_PATH:+;${CMAKE_PREFIX_PATH//:/;}}" \
        -DTILEMM_REQUIRE_BACKENDS="CUDA;OpenMP" -DTILEMM_GIT_HASH="${TILEMM_GIT_HASH:-}"
      cmake --build "$build" --parallel "$jobs" ${TILEMM_TARGETS:+--target $TILEMM_TARGETS}
      ;;
    test)
      log "ctest"
      OMP_PROC_BIND=false ctest --test-dir "$build" --output-on-failure -j 4 2>&1 | tee "$out/ctest.log"
      ;;
    sanitize)
      for tool in memcheck racecheck; do
        for spec in sanitize sanitize-tensor; do
          log "compute-sanitizer --tool $tool on $spec.yaml"
          compute-sanitizer --tool "$tool" --error-exitcode 9 \
            "$tilemm" "tests/cli/specs/$spec.yaml" --backend cuda --quiet \
            >"$out/$spec-$tool.log" 2>&1 || { tail -n 30 "$out/$spec-$tool.log"; exit 1; }
          tail -n 2 "$out/$spec-$tool.log"
        done
      done
      ;;
    ptxas)
      # The backend file and the register-tiled instance files (src/CMakeLists.txt), side by side.
      cuda_objects='^src/CMakeFiles/tilemm_core.dir/(tilemm/backends/cuda|generated/register_tiled/Cuda_[A-Za-z_]+)\.cpp\.o'
      objects=$(cd "$build" && ninja -t targets all | grep -oE "$cuda_objects" | sort -u)
      log "compiler report of" $objects
      pids=()
      for object in $objects; do
        command=$(cd "$build" && ninja -t commands "$object" | tail -n 1)
        (cd "$build" && eval "${command/ -c / -Xptxas -v -c }") \
          >"$out/ptxas-$(basename "$object" .cpp.o).log" 2>&1 &
        pids+=($!)
      done
      for pid in "${pids[@]}"; do
        wait "$pid" || { tail -n 30 "$out"/ptxas-*.log; exit 1; }
      done
      cat "$out"/ptxas-*.log >"$out/ptxas.log"
      rm -f "$out"/ptxas-*.log
      perf/ptxas_report.py "$out/ptxas.log" | tee "$out/ptxas.txt"
      ;;
    tune) run_spec tune inputs/tune-register-tiled.yaml --backend cuda --quiet ;;
    ops) run_spec ops-layouts inputs/ops-layouts-gpu.yaml --backend cuda --quiet ;;
    tiles) run_spec tiles inputs/tensor-tiles-gpu.yaml --backend cuda --quiet ;;
    ozaki) run_spec ozaki-gpu inputs/ozaki-gpu.yaml --backend cuda --quiet ;;
    study)
      run_spec square-gpu inputs/square-gpu.yaml --backend cuda
      run_spec small-skinny inputs/small-skinny.yaml --backend cuda --quiet
      ;;
    cpu)
      OMP_PROC_BIND=spread OMP_PLACES=threads run_spec cpu-vs-blas inputs/cpu-vs-blas.yaml \
        --backend openmp --quiet
      ;;
    kernels)
      for test in "${tests[@]}"; do
        log "$(basename "$test")"
        "$test" >"$out/$(basename "$test").log" 2>&1 || { tail -n 40 "$out/$(basename "$test").log"; exit 1; }
        tail -n 2 "$out/$(basename "$test").log"
      done
      ;;
    profile)
      # Where each orientation's time goes: throughput, shared-memory bank conflicts, warp stalls
      # and occupancy of every tensor-tiled launch of perf/specs/profile-orientations.yaml, with
      # the clocks left as the board sets them.
      log "ncu on tensor-tiled in each orientation"
      ncu --clock-control none --kernel-name-base demangled -k regex:TensorTiledGemm \
        --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section WarpStateStats \
        --section Occupancy --section LaunchStats \
        "$tilemm" perf/specs/profile-orientations.yaml --backend cuda --quiet \
        >"$out/profile-$tag-$day.txt" 2>&1 || { tail -n 30 "$out/profile-$tag-$day.txt"; exit 1; }
      ;;
    summa-ops)
      # Four ranks, whether on four GPUs or sharing fewer (comm auto: NCCL or host-staged MPI).
      log "summa-ops on 4 ranks"
      NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} mpirun --bind-to none -n 4 \
        -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS "$tilemm" perf/specs/summa-ops-4.yaml \
        --backend cuda --json "$out/summa-ops-$tag-$day.json" | tee "$out/summa-ops-$tag-$day.txt"
      ;;
    bench)
      log "tilemm-bench"
      "$build/perf/tilemm-bench" --backend cuda --sizes 1024,4096 --layouts right \
        --benchmark_repetitions=3 --benchmark_out="$out/bench-$tag-$day.json" \
        --benchmark_out_format=json | tee "$out/bench-$tag-$day.txt"
      ;;
    *) log "unknown step '$step'"; exit 2 ;;
  esac
done
log "done: $out"
