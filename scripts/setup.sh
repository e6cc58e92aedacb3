#!/usr/bin/env bash
# Sets up what is missing and builds tilemm into build/ (the CMake preset "default"):
#   1. Debian packages for the build and tests (as root, with apt's ordinary client; skipped when
#      everything is installed, or when this is not a Debian-like system);
#   2. Kokkos and Kokkos Kernels with OpenMP: an existing install from Kokkos_ROOT or
#      CMAKE_PREFIX_PATH if it has OpenMP, otherwise built once by scripts/bootstrap-kokkos.sh;
#   3. configure (printing the Kokkos version, folder and backends) and build.
# Environment: TILEMM_PRESET (default "default"), TILEMM_JOBS (default nproc), and anything
# bootstrap-kokkos.sh reads.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[setup] %s\n' "$*" >&2; }

preset=${TILEMM_PRESET:-default}
packages=(cmake ninja-build g++ git pkg-config libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
          libssl-dev libgtest-dev libbenchmark-dev libopenblas-openmp-dev python3 python3-numpy
          python3-pandas python3-matplotlib ca-certificates
          libblas3 libblis4-openmp  # two more BLAS: tests preload them (cli.blas_*)
          libopenmpi-dev openmpi-bin libscalapack-openmpi-dev)  # distributed runs and their tests

# --- 1. Debian packages
if command -v dpkg-query >/dev/null && command -v apt-get >/dev/null; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
      log "missing packages: ${missing[*]}"
      log "install them as root: apt-get install ${missing[*]}"
      exit 1
    fi
    log "installing: ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    log "Debian packages: all present"
  fi
fi

# --- 2. Kokkos with OpenMP
has_openmp() {  # a folder holding KokkosConfigCommon.cmake of a Kokkos with OpenMP
  grep -qs 'Kokkos_DEVICES.*OPENMP' "$1/KokkosConfigCommon.cmake"
}
find_kokkos() {
  local roots=() root dir
  [[ -n ${Kokkos_ROOT:-} ]] && roots+=("$Kokkos_ROOT")
  IFS=: read -r -a extra <<<"${CMAKE_PREFIX_PATH:-}"
  roots+=("${extra[@]}" /usr/local /usr)
  for root in "${roots[@]}"; do
    [[ -n $root ]] || continue
    for dir in "$root"/lib*/cmake/Kokkos "$root"/lib/*/cmake/Kokkos; do
      if has_openmp "$dir"; then echo "$root"; return 0; fi
    done
  done
  return 1
}
if prefix=$(find_kokkos); then
  log "Kokkos with OpenMP found in $prefix"
else
  log "no Kokkos with OpenMP found (Kokkos_ROOT, CMAKE_PREFIX_PATH, /usr/local, /usr): bootstrapping one"
  prefix=$(scripts/bootstrap-kokkos.sh | tail -n 1)
fi

# --- 3. Configure and build
python=()
[[ -x /usr/bin/python3 ]] && python=(-DPython3_EXECUTABLE=/usr/bin/python3)
cmake --preset "$preset" -DCMAKE_PREFIX_PATH="$prefix${CMAKE_PREFIX_PATH:+;${CMAKE_PREFIX_PATH//:/;}}" \
  -DTILEMM_REQUIRE_BACKENDS=OpenMP "${python[@]}"
cmake --build --preset "$preset" --parallel "${TILEMM_JOBS:-$(nproc)}"
