#!/usr/bin/env python3
"""The CPU affinity a run records is the processors the process was given, under the pinning the
batch scripts use (OMP_PROC_BIND=spread OMP_PLACES=threads), which moves the main thread onto one
of them as the OpenMP runtime loads; tilemm and tilemm-bench read it before that.

  affinity.py TILEMM SPEC [TILEMM_BENCH]      exit 0: passed, 1: failed, 77: one processor here
"""
import json
import os
import subprocess
import sys
import tempfile


def ranges(cpus):
    """"0-3,8" of a set of processor numbers, as the context writes them."""
    text, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        text.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(text)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    given = os.sched_getaffinity(0)
    if len(given) < 2:
        print("skipped: this process may run on one processor, which pinning cannot narrow")
        return 77
    want = ranges(given)
    env = dict(os.environ, OMP_PROC_BIND="spread", OMP_PLACES="threads", OMP_NUM_THREADS="2")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        run = subprocess.run([sys.argv[1], sys.argv[2], "--backend", "openmp", "--quiet",
                              "--json", out], capture_output=True, text=True, env=env)
        got = json.load(open(out))["context"]["cpu_affinity"] if run.returncode == 0 else None
        print("tilemm: exit %d, cpu_affinity %r, expected %r" % (run.returncode, got, want))
        failures += got != want
        if len(sys.argv) == 4 and sys.argv[3]:  # empty: a build without tilemm-bench
            out = os.path.join(tmp, "bench.json")
            run = subprocess.run([sys.argv[3], "--backend", "openmp", "--sizes", "16",
                                  "--kernels", "naive", "--benchmark_min_time=0.001",
                                  "--benchmark_out=" + out], capture_output=True, text=True,
                                 env=env)
            got = json.load(open(out))["context"].get("cpu_affinity") if run.returncode == 0 \
                else None
            print("tilemm-bench: exit %d, cpu_affinity %r, expected %r" % (run.returncode, got, want))
            failures += got != want
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
