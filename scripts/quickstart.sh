#!/usr/bin/env bash
# Sets up and builds what is missing (scripts/setup.sh), then runs inputs/quickstart.yaml on Kokkos'
# default backend (OpenMP on a CPU build), writing build/quickstart.json and build/quickstart.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/src/tilemm inputs/quickstart.yaml --json build/quickstart.json --csv build/quickstart.csv "$@"
