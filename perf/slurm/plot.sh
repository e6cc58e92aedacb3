#!/bin/bash
# Turns every result file in a folder (default results/, where perf/slurm/*.sbatch write) into the
# study: RESULTS/plots/summary.csv, the PNG plots and the performance-portability figure.
#   perf/slurm/plot.sh [RESULTS] [perf/plot.py options, e.g. --peak 'DEVICE:double=GFLOPS']
# Exit status: 2 when the folder holds no .json file; else perf/plot.py's (1 when a file could not
# be read: the study is made from the rest; 2 for a bad option).
# PYTHON: the Python with pandas and matplotlib (default: python3, or the system's /usr/bin/python3
# when python3, such as a module's or a virtual environment's, lacks them).
# After the runs, as a job of its own (seconds, one core):
#   sbatch --dependency=afterany:JOB1:JOB2 perf/slurm/plot.sh
#SBATCH --job-name=tilemm-plot
#SBATCH --account=CHANGE_ME
#SBATCH --partition=CHANGE_ME
#SBATCH --time=00:05:00
#SBATCH --ntasks=1
#SBATCH --output=%x-%j.log
set -euo pipefail
caller=$PWD
cd "${SLURM_SUBMIT_DIR:-$(dirname "$0")/../..}"  # the repository root

# ---- Site environment: edit. A Python with pandas and matplotlib (or name one in PYTHON). ----
# module load python/3.11
# spack env activate -d /path/to/tilemm
# ---------------------------------------------------------------------------------------------------
results=results
# A folder named on the command line (the first argument, unless it is an option) is where the
# caller says: relative to the caller's folder.
if (($#)) && [[ $1 != -* ]]; then
  results=$1
  [[ $results == /* ]] || results=$caller/$results
  shift
fi
shopt -s nullglob
files=("$results"/*.json)
((${#files[@]})) || { echo "plot.sh: no .json files in $results/" >&2; exit 2; }
python=${PYTHON:-python3}
if [[ -z ${PYTHON:-} ]] && ! python3 -c 'import pandas, matplotlib' 2>/dev/null &&
  [[ -x /usr/bin/python3 ]]; then
  python=/usr/bin/python3
fi
exec "$python" perf/plot.py "${files[@]}" --out "$results/plots" "$@"
