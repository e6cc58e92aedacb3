#!/usr/bin/env bash
# Measures the CPU schedule against the CPU BLAS, and its thread scaling, as dated JSON, with a
# tilemm built for an OpenMP-only Kokkos: built here (steps kokkos, build), or built on another
# machine and carried as a bundle (step bundle there, TILEMM_BUNDLE here), for a machine that has
# no compiler dependencies of its own, such as the lent GPU machines' host.
#
#   perf/cpu-study.sh KOKKOS_PREFIX OUT_DIR [STEP...]
#
# Steps (default: build test blas threads plot):
#   kokkos   build Kokkos and Kokkos Kernels (its BLAS component, headers only, the BLAS TPL) from
#            KOKKOS_SRC/kokkos and KOKKOS_SRC/kokkos-kernels into KOKKOS_PREFIX, OpenMP alone, for
#            this CPU (Kokkos_ARCH_NATIVE; TILEMM_KOKKOS_ARCH=SPR names one instead)
#   build    configure build-cpu/ with the C++ compiler against KOKKOS_PREFIX and build it
#   test     the CPU suite: kernels at 1 and 2 threads, the CPU schedule's units -> OUT_DIR/ctest.log
#   bundle   TILEMM and the shared libraries it loads (less the C and C++ runtimes and the loader,
#            which the machine that measures has) in one
#            archive to carry to the machine that measures   -> OUT_DIR/cpu-study-bundle.tar.xz
#   blas     inputs/cpu-vs-blas.yaml and inputs/cpu-schedule.yaml on THREADS threads
#                                                      -> OUT_DIR/DATE-{cpu-vs-blas,cpu-schedule}-TAG.json
#   threads  inputs/cpu-threads.yaml on each of THREAD_COUNTS -> OUT_DIR/DATE-cpu-threads-TAG-Nthreads.json
#   square   inputs/square.yaml, every kernel up to n = 2048, on THREADS threads
#                                                      -> OUT_DIR/DATE-cpu-square-TAG.json
#   plot     perf/plot.py on OUT_DIR's JSON (thread_scaling.png, ...)  -> OUT_DIR/plots/
#
# Every run: OMP_PROC_BIND=spread OMP_PLACES=threads, OpenBLAS told its kernel by OPENBLAS_CORETYPE
# (default SkylakeX, the kernel of AVX-512 Xeons, which Debian 12's OpenBLAS does not pick by
# itself on the lent machines' host; the results' blas_core says which ran). Environment: THREADS
# (default: the processors this process may run on), THREAD_COUNTS (default "1 2 4 8 16", those up
# to THREADS), OPENBLAS_CORETYPE, TILEMM_JOBS (default nproc), TILEMM_TAG (file name tag, default
# the tree's short commit hash), TILEMM_GIT_HASH (the hash to report when the tree's .git is absent), KOKKOS_SRC,
# TILEMM (the tilemm to run or bundle, default build-cpu/src/tilemm), TILEMM_BUNDLE (an archive of
# the bundle step: unpacked into a temporary folder, its tilemm run with its libraries; KOKKOS_PREFIX
# is then unused).
#
# On the lent machines' host, from a bundle made on a machine with the build's packages (Debian
# 12: scripts/setup.sh, whose Kokkos 3.4.1 is built for SKX, AVX-512):
#   here:  perf/cpu-study.sh KOKKOS_PREFIX .carry bundle   (TILEMM=build/src/tilemm)
#   there: TILEMM_BUNDLE=.carry/cpu-study-bundle.tar.xz THREADS=16 TILEMM_TAG=COMMIT \
#            perf/cpu-study.sh "$OUT" "$OUT" blas threads square
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 2 ]] || { sed -n '2,36p' "$0"; exit 2; }
prefix=$1 out=$2
shift 2
steps=("$@")
((${#steps[@]})) || steps=(build test blas threads plot)
mkdir -p "$out" "$prefix"
prefix=$(cd "$prefix" && pwd) out=$(cd "$out" && pwd)
jobs=${TILEMM_JOBS:-$(nproc)}
threads=${THREADS:-$(nproc)}
base_tag=${TILEMM_TAG:-$(git rev-parse --short HEAD 2>/dev/null || echo host)}
tag=$base_tag
day=$(date -u +%Y-%m-%d)
build=build-cpu
tilemm=${TILEMM:-$build/src/tilemm}
library_path=${LD_LIBRARY_PATH:-}  # tilemm's: the bundle's libraries first
if [[ -n ${TILEMM_BUNDLE:-} ]]; then
  unpacked=$(mktemp -d "${TMPDIR:-/tmp}/cpu-study.XXXXXX")
  trap 'rm -rf "$unpacked"' EXIT
  tar -xJf "$TILEMM_BUNDLE" -C "$unpacked"
  tilemm=$unpacked/tilemm
  library_path=$unpacked/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export OMP_PROC_BIND=spread OMP_PLACES=threads OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}
log() { printf '[cpu-study %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

run_spec() {  # run_spec NAME SPEC THREADS: the CLI's JSON and CSV into OUT_DIR
  local name=$1 spec=$2 count=$3
  log "$name: $spec on $count threads"
  OMP_NUM_THREADS=$count OPENBLAS_NUM_THREADS=$count \
    LD_LIBRARY_PATH=$library_path "$tilemm" "$spec" --backend openmp --quiet \
    --json "$out/$day-$name-$tag.json" --csv "$out/$day-$name-$tag.csv" \
    | tee "$out/$day-$name-$tag.txt"
}

kokkos() {
  local src=${KOKKOS_SRC:?KOKKOS_SRC: a folder holding kokkos/ and kokkos-kernels/}
  local arch=-DKokkos_ARCH_NATIVE=ON
  [[ -n ${TILEMM_KOKKOS_ARCH:-} ]] && arch=-DKokkos_ARCH_${TILEMM_KOKKOS_ARCH}=ON
  log "Kokkos from $src/kokkos into $prefix ($arch)"
  cmake -S "$src/kokkos" -B "$build-kokkos" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON "$arch" -DKokkos_ENABLE_TESTS=OFF
  cmake --build "$build-kokkos" --parallel "$jobs"
  cmake --install "$build-kokkos"
  log "Kokkos Kernels from $src/kokkos-kernels"
  cmake -S "$src/kokkos-kernels" -B "$build-kk" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib -DKokkos_ROOT="$prefix" \
    -DKokkosKernels_ENABLE_COMPONENTS=BLAS -DKokkosKernels_ENABLE_TPL_BLAS=ON \
    -DKokkosKernels_ENABLE_TPL_LAPACK=OFF -DBLAS_LIBRARIES=openblas \
    "-DF77_BLAS_MANGLE=(name,NAME) name ## _" -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
    -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF
  cmake --build "$build-kk" --parallel "$jobs"
  cmake --install "$build-kk"
}

for step in "${steps[@]}"; do
  case $step in
    kokkos) kokkos ;;
    build)
      log "configure against $prefix"
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix${CMAKE_PREFIX_PATH:+;${CMAKE_PREFIX_PATH//:/;}}" \
        -DTILEMM_REQUIRE_BACKENDS=OpenMP -DTILEMM_GIT_HASH="${TILEMM_GIT_HASH:-}"
      cmake --build "$build" --parallel "$jobs"
      ;;
    test)
      log "ctest: the CPU suite"
      ctest --test-dir "$build" --output-on-failure -j 4 -R '^(kernels\.|fragments)' \
        2>&1 | tee "$out/ctest.log"
      ;;
    bundle)
      log "bundle: $tilemm and its shared libraries"
      rm -rf "$out/bundle-src" && mkdir -p "$out/bundle-src/lib"
      cp -L "$tilemm" "$out/bundle-src/tilemm"
      ldd "$tilemm" | awk '$3 ~ /^\// { print $3 }' | grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
        xargs -I{} cp -L {} "$out/bundle-src/lib/"
      tar -cf - -C "$out/bundle-src" . | xz -T"$jobs" -6 >"$out/cpu-study-bundle.tar.xz"
      rm -rf "$out/bundle-src"
      ls -l "$out/cpu-study-bundle.tar.xz" >&2
      ;;
    blas)
      run_spec cpu-vs-blas inputs/cpu-vs-blas.yaml "$threads"
      run_spec cpu-schedule inputs/cpu-schedule.yaml "$threads"
      ;;
    threads)
      for count in ${THREAD_COUNTS:-1 2 4 8 16}; do
        ((count <= threads)) || continue
        tag=$base_tag-${count}threads
        run_spec cpu-threads inputs/cpu-threads.yaml "$count"
      done
      tag=$base_tag
      ;;
    square) run_spec cpu-square inputs/square.yaml "$threads" ;;
    plot)
      log "plot.py"
      perf/plot.py "$out"/*.json --out "$out/plots" | tee "$out/plot.txt"
      ;;
    *) log "unknown step '$step'"; exit 2 ;;
  esac
done
log "done: $out"
