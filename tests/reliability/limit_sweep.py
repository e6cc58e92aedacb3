#!/usr/bin/env python3
"""Shrinks the address-space limit (ulimit -v) step by step under a small spec, from 1 GiB down,
and checks the first limit at which tilemm does not pass: it must refuse the problem cleanly (exit
status 3, the memory message), not hang. OpenBLAS maps a 128 MiB buffer on its first call and,
when that map fails, tries again for ever: the plan has to leave room for it (runner.cpp).

  limit_sweep.py TILEMM SPEC BACKEND     exit 0: passed, 1: failed, 77: the BLAS is not OpenBLAS

Below that first failure other things stop the run before tilemm starts (the OpenMP runtime cannot
make its threads; OpenBLAS cannot map its threads' buffers as it loads, and waits): those are not
tilemm's to catch, and the README's failure table says so.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

STEP = 16 << 20
TIMEOUT_S = 30


def run(command, limit, env):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT_S,
                              preexec_fn=apply if limit else None)
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, done.stderr


def main():
    tilemm, spec, backend = sys.argv[1:4]
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false")
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.json")
        status, stderr = run([tilemm, spec, "--backend", backend, "-q", "--json", probe], 0, env)
        if status != 0:
            print("FAIL: without a limit the spec did not pass (exit status %s):\n%s" % (status, stderr))
            return 1
        with open(probe) as f:
            blas = json.load(f)["context"].get("blas", "")
    if not blas.startswith("OpenBLAS"):
        print("SKIP: the BLAS is %r, not OpenBLAS" % blas)
        return 77
    limit = 1 << 30
    while limit > STEP:
        status, stderr = run([tilemm, spec, "--backend", backend, "-q"], limit, env)
        print("ulimit -v %d KiB: exit status %s" % (limit >> 10, "none (hung)" if status is None else status))
        if status != 0:
            clean = status == 3 and "of host memory;" in stderr and "OpenBLAS" in stderr
            print(stderr.strip())
            print("%s: the first limit that stops the run gives %s" %
                  ("ok" if clean else "FAIL", "a clean refusal (3)" if clean else "no clean refusal"))
            return 0 if clean else 1
        limit -= STEP
    print("FAIL: every limit down to %d KiB passed; the sweep found no refusal" % (limit >> 10))
    return 1


if __name__ == "__main__":
    sys.exit(main())
