#!/usr/bin/env python3
"""Shrinks the address-space limit (ulimit -v), or the data limit (ulimit -d), step by step under a
small spec, from 1 GiB down,
and checks the first limit at which tilemm does not pass: it must refuse the problem cleanly (exit
status 3, the memory message), not hang or crash. OpenBLAS maps a 128 MiB buffer on its first call
and, when that map fails, tries again for ever: the plan has to leave room for it (plan.cpp).
Then the 16 MiB above that limit again in steps of 64 KiB: a limit just above the refusal, that
leaves OpenBLAS's buffer a little short, would hang the run in a window narrower than the steps.

  limit_sweep.py TILEMM SPEC BACKEND [as|data] [THREADS]
      exit 0: passed, 1: failed, 77: the BLAS is not OpenBLAS

THREADS (default 2) is the run's OpenMP thread count. On more threads than it loaded with, an
OpenMP build of OpenBLAS maps a buffer for each added thread on a call large enough to share out;
the sweep then starts from 1 GiB plus 192 MiB a thread.

Below that first failure other things stop the run before tilemm starts (the OpenMP runtime cannot
make its threads; OpenBLAS cannot map its threads' buffers as it loads, and waits): those are not
tilemm's to catch, and tests/README.md's failure list says so. What must hold there is that SIGTERM
(a batch system's time limit) still ends such a run: the sweep goes on down to 64 MiB, and a run
that hangs is sent SIGTERM and must end within 10 s.
"""
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile

import sweep

STEP = 16 << 20
FINE_STEP = 64 << 10
TIMEOUT_S = 30
FINE_TIMEOUT_S = 10


def run(command, limit, env, timeout=TIMEOUT_S, which=resource.RLIMIT_AS):
    """(exit status, stderr) of one run under `limit`; None for a run that hung and SIGTERM ended,
    "unstoppable" for one that SIGTERM did not end."""
    def apply():
        resource.setrlimit(which, (limit, limit))
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env=env, preexec_fn=apply if limit else None)
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return "unstoppable", ""
        return None, ""
    return process.returncode, stderr


def main():
    tilemm, spec, backend = sys.argv[1:4]
    which = resource.RLIMIT_DATA if sys.argv[4:5] == ["data"] else resource.RLIMIT_AS
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false")
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
    command = [tilemm, spec, "--backend", backend, "-q"]

    def clean(status, stderr):
        return status == 3 and "of host memory;" in stderr and "OpenBLAS" in stderr

    def run_at(limit, fine_step):
        return run(command, limit, env, FINE_TIMEOUT_S if fine_step else TIMEOUT_S, which)

    top = (1 << 30) + max(threads - 2, 0) * (192 << 20)
    found = sweep.sweep(run_at, clean, top=top, step=STEP, fine=FINE_STEP)
    if found is None:
        return 1
    for limit in range(found[0] - STEP, (64 << 20) - 1, -4 * STEP):
        if run(command, limit, env, FINE_TIMEOUT_S, which)[0] == "unstoppable":
            print("FAIL: limit %d KiB: the run hung and SIGTERM did not end it" % (limit >> 10))
            return 1
    print("ok: every limit from %d KiB down to %d KiB in steps of 64 KiB passed or was refused (3)"
          % ((found[0] + STEP) >> 10, found[0] >> 10))
    return 0

if __name__ == "__main__":
    sys.exit(main())
