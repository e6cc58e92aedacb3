#!/bin/bash
# perf/slurm's batch scripts outside Slurm: srun is a stand-in that runs its command, and tilemm and
# tilemm-bench are stand-ins that log their call and exit with a chosen status. Checks the job's
# exit status (tilemm's failure is not hidden by the bench's; a tilemm stopped by the time limit's
# signal starts no bench; mpirun's 1 for a stopped run is 143), the job array's thread count and file per task, the #SBATCH directives
# a measurement needs, and that plot.sh takes options without a folder first.
#   tests/perf/test_slurm.sh      exit 0: passed, 1: failed
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
cat > "$work/bin/srun" <<'STUB'
#!/bin/bash
[[ -n ${FAKE_SRUN:-} ]] && echo "srun $*" >> "$FAKE_SRUN"
while [[ $# -gt 0 && $1 == --* ]]; do shift; done  # srun's own options
exec "$@"
STUB
cat > "$work/bin/fake-tilemm" <<'STUB'
#!/bin/bash
echo "tilemm OMP_NUM_THREADS=${OMP_NUM_THREADS:-} $*" >> "$FAKE_CALLS"
# The JSON file's last key, as tilemm writes it: FAKE_JSON_STATUS (default complete).
while [[ $# -gt 0 ]]; do
  [[ $1 == --json ]] && printf '{\n  "results": [\n  ],\n  "status": "%s"\n}\n' \
    "${FAKE_JSON_STATUS:-complete}" > "$2"
  shift
done
exit "${FAKE_TILEMM_STATUS:?}"
STUB
cat > "$work/bin/fake-bench" <<'STUB'
#!/bin/bash
echo "bench $*" >> "$FAKE_CALLS"
exit "${FAKE_BENCH_STATUS:?}"
STUB
chmod +x "$work/bin/"*
failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
# verdict STATUS OK_MESSAGE FAIL_MESSAGE
verdict() { if [[ $1 == 0 ]]; then pass "$2"; else fail "$3"; fi; }

# run SCRIPT TILEMM_STATUS BENCH_STATUS [VAR=VALUE...]: the job's exit status; calls in $work/calls
run() {
  local script=$1 tilemm=$2 bench=$3
  shift 3
  : > "$work/calls"
  (cd "$work" && env PATH="$work/bin:$PATH" SLURM_SUBMIT_DIR="$work" SLURM_CPUS_PER_TASK=2 \
    TILEMM="$work/bin/fake-tilemm" TILEMM_BENCH="$work/bin/fake-bench" FAKE_CALLS="$work/calls" \
    FAKE_TILEMM_STATUS="$tilemm" FAKE_BENCH_STATUS="$bench" "$@" \
    bash "$root/perf/slurm/$script" > "$work/job.log" 2>&1)
}

# job SCRIPT TILEMM_STATUS BENCH_STATUS EXPECTED
job() {
  run "$1" "$2" "$3"
  local got=$?
  if [[ $got == "$4" ]]; then
    pass "$1: tilemm $2, tilemm-bench $3 -> job exit status $got"
  else
    fail "$1: tilemm $2, tilemm-bench $3 -> job exit status $got, expected $4"
    cat "$work/job.log"
  fi
}
for script in openmp.sbatch cuda.sbatch; do
  job "$script" 0 0 0
  job "$script" 1 0 1  # a result failed validation
  job "$script" 0 1 1  # the bench failed
  job "$script" 3 1 3  # tilemm's runtime error, then the bench failed too: tilemm's status stays
  job "$script" 143 0 143  # SIGTERM from --signal: tilemm kept its results; no bench after it
  if grep -q '^bench' "$work/calls"; then
    fail "$script: tilemm-bench started after tilemm was stopped by a signal"
  else
    pass "$script: no tilemm-bench after tilemm was stopped by a signal"
  fi
done

# distributed.sbatch: srun passes on the ranks' status; mpirun's 1 after SIGTERM (the JSON's status
# interrupted) ends the job as a stopped run, 143; a 1 with the run complete is a failed validation.
for case in 0:complete:0 1:complete:1 143:interrupted:143 1:interrupted:143 3:failed:3; do
  IFS=: read -r tilemm json want <<< "$case"
  run distributed.sbatch "$tilemm" 0 SLURM_NTASKS=4 FAKE_JSON_STATUS="$json"
  got=$?
  [[ $got == "$want" ]]
  verdict $? "distributed.sbatch: tilemm $tilemm, JSON $json -> job exit status $got" \
    "distributed.sbatch: tilemm $tilemm, JSON $json -> job exit status $got, expected $want"
done
rm -rf "$work/results"  # the stand-in's JSON files: plot.sh below expects none

# The job array: task 2 of THREAD_COUNTS="1 2 4" runs on 4 threads, into the array's folder.
run threads.sbatch 0 0 SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_JOB_ID=77 THREAD_COUNTS="1 2 4" MACHINE=test
status=$?
want="tilemm OMP_NUM_THREADS=4 inputs/cpu-vs-blas.yaml --backend openmp --quiet"
want+=" --json results/threads-77/cpu-vs-blas-test-4threads.json"
if [[ $status == 0 && $(cat "$work/calls") == "$want"* && -d $work/results/threads-77 ]]; then
  pass "threads.sbatch: array task 2 runs 4 threads into results/threads-77/...-4threads.json"
else
  fail "threads.sbatch: exit status $status, call: $(cat "$work/calls")"
fi
run threads.sbatch 0 0 SLURM_ARRAY_TASK_ID=3 THREAD_COUNTS="1 2 4"
status=$?
if [[ $status == 2 && ! -s $work/calls ]] && grep -q 'has 3 counts' "$work/job.log"; then
  pass "threads.sbatch: an array index past THREAD_COUNTS is refused (exit status 2)"
else
  fail "threads.sbatch: index 3 of 3 counts -> exit status $status"
fi
run threads.sbatch 1 0 SLURM_ARRAY_TASK_ID=0
status=$?
[[ $status == 1 ]]
verdict $? "threads.sbatch: tilemm's exit status is the task's" "threads.sbatch: tilemm 1 -> task exit status $status"

# distributed.sbatch: the study on 1, 2 and 4 ranks by default, each count its own files; the first
# failing run's status is the job's; a run stopped by a signal ends the job.
: > "$work/srun"
run distributed.sbatch 1 0 FAKE_SRUN="$work/srun" MACHINE=test
status=$?
ranks=$(sed -n 's/.*--ntasks=\([0-9]*\).*/\1/p' "$work/srun" | tr '\n' ' ')
files=$(grep -o 'json results/summa-scaling-test-[0-9]ranks' "$work/calls" | sed 's/^json //' | tr '\n' ' ')
want="results/summa-scaling-test-1ranks results/summa-scaling-test-2ranks "
want+="results/summa-scaling-test-4ranks "
if [[ $status == 1 && $ranks == "1 2 4 " && $files == "$want" ]]; then
  pass "distributed.sbatch: 1, 2 and 4 ranks by default, a file each; a failed validation -> 1"
else
  fail "distributed.sbatch: exit status $status, ranks '$ranks', files '$files'"
fi
run distributed.sbatch 143 0 RANKS="2 4"
status=$?
[[ $status == 143 && $(wc -l < "$work/calls") == 1 ]]
verdict $? "distributed.sbatch: a run stopped by a signal starts no other" \
  "distributed.sbatch: tilemm 143 -> exit status $status, calls: $(cat "$work/calls")"

# seconds D-HH:MM:SS | HH:MM:SS | MM:SS | MM
seconds() {
  local days=0 rest=$1 h=0 m s=0
  [[ $rest == *-* ]] && { days=${rest%%-*}; rest=${rest#*-}; }
  IFS=: read -ra f <<< "$rest"
  case ${#f[@]} in
    3) h=${f[0]} m=${f[1]} s=${f[2]} ;;
    2) m=${f[0]} s=${f[1]} ;;
    *) m=${f[0]} ;;
  esac
  echo $(((10#$days * 24 + 10#$h) * 3600 + 10#$m * 60 + 10#$s))
}

# The directives: one thread per core, a node of its own, SIGTERM early enough (Slurm may send it
# up to 60 s before the time asked) and a marked place for the site's modules or Spack environment.
for script in openmp.sbatch cuda.sbatch threads.sbatch distributed.sbatch; do
  file=$root/perf/slurm/$script
  for directive in '--hint=nomultithread' '--exclusive'; do
    grep -qx "#SBATCH $directive" "$file"
    verdict $? "$script: #SBATCH $directive" "$script: no #SBATCH $directive"
  done
  signal=$(sed -n 's/^#SBATCH --signal=TERM@\([0-9]*\)$/\1/p' "$file")
  limit=$(seconds "$(sed -n 's/^#SBATCH --time=//p' "$file")")
  if [[ -n $signal ]] && ((signal >= 60 && signal + 60 < limit)); then
    pass "$script: SIGTERM ${signal} s before the time limit of ${limit} s"
  else
    fail "$script: --signal=TERM@'$signal' does not fit the time limit of $limit s"
  fi
done
for script in openmp.sbatch cuda.sbatch threads.sbatch distributed.sbatch plot.sh; do
  grep -q '^# ---- Site environment' "$root/perf/slurm/$script" &&
    grep -q '^# module load' "$root/perf/slurm/$script"
  verdict $? "$script: a marked place for module load / spack env activate" "$script: no marked site environment"
done
grep -q '^#SBATCH --array=' "$root/perf/slurm/threads.sbatch"
verdict $? "threads.sbatch: #SBATCH --array" "threads.sbatch: no #SBATCH --array"

# plot.sh with an option first: the folder is results/ (none here: exit 2, naming results/).
rm -rf "$work/results"  # the stand-ins' JSON files of the checks above
out=$(cd "$work" && SLURM_SUBMIT_DIR="$work" bash "$root/perf/slurm/plot.sh" --peak 'X:double=1' 2>&1)
status=$?
if [[ $status == 2 && $out == *"no .json files in results/"* ]]; then
  pass "plot.sh --peak ...: the folder stays results/"
else
  fail "plot.sh --peak ...: exit status $status, output: $out"
fi
if ((failures)); then
  echo "$failures checks failed"
  exit 1
fi
echo "all checks passed"
