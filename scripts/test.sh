#!/usr/bin/env bash
# Sets up and builds what is missing (scripts/setup.sh), then runs the whole CTest suite: every
# backend of the Kokkos build (OpenMP at one and two threads), the CLI's contract, the I/O units.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --preset "${TILEMM_PRESET:-default}" "$@"
