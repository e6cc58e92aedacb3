#!/bin/bash
# perf/slurm's batch scripts outside Slurm: srun is a stand-in that runs its command, and tilemm and
# tilemm-bench are stand-ins that exit with a chosen status. Checks the job's exit status (tilemm's
# failure is not hidden by the bench's) and that plot.sh takes options without a folder first.
#   tests/perf/test_slurm.sh      exit 0: passed, 1: failed
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
cat > "$work/bin/srun" <<'STUB'
#!/bin/bash
while [[ $# -gt 0 && $1 == --* ]]; do shift; done  # srun's own options
exec "$@"
STUB
cat > "$work/bin/fake-tilemm" <<'STUB'
#!/bin/bash
exit "${FAKE_TILEMM_STATUS:?}"
STUB
cat > "$work/bin/fake-bench" <<'STUB'
#!/bin/bash
exit "${FAKE_BENCH_STATUS:?}"
STUB
chmod +x "$work/bin/"*
failures=0

# job SCRIPT TILEMM_STATUS BENCH_STATUS EXPECTED
job() {
  local got
  (cd "$work" && PATH="$work/bin:$PATH" SLURM_SUBMIT_DIR="$work" SLURM_CPUS_PER_TASK=2 \
    TILEMM="$work/bin/fake-tilemm" TILEMM_BENCH="$work/bin/fake-bench" \
    FAKE_TILEMM_STATUS=$2 FAKE_BENCH_STATUS=$3 bash "$root/perf/slurm/$1" > "$work/job.log" 2>&1)
  got=$?
  if [[ $got == "$4" ]]; then
    echo "ok   $1: tilemm $2, tilemm-bench $3 -> job exit status $got"
  else
    echo "FAIL $1: tilemm $2, tilemm-bench $3 -> job exit status $got, expected $4"
    cat "$work/job.log"
    failures=$((failures + 1))
  fi
}
for script in openmp.sbatch cuda.sbatch; do
  job "$script" 0 0 0
  job "$script" 1 0 1  # a result failed validation
  job "$script" 0 1 1  # the bench failed
  job "$script" 3 1 3  # tilemm's runtime error, then the bench failed too: tilemm's status stays
done

# plot.sh with an option first: the folder is results/ (none here: exit 2, naming results/).
out=$(cd "$work" && SLURM_SUBMIT_DIR="$work" bash "$root/perf/slurm/plot.sh" --peak 'X:double=1' 2>&1)
status=$?
if [[ $status == 2 && $out == *"no .json files in results/"* ]]; then
  echo "ok   plot.sh --peak ...: the folder stays results/"
else
  echo "FAIL plot.sh --peak ...: exit status $status, output: $out"
  failures=$((failures + 1))
fi
((failures == 0)) && echo "all checks passed" || { echo "$failures checks failed"; exit 1; }
