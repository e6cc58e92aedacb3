#!/usr/bin/env python3
"""Runs tilemm in a cgroup of its own with a memory limit, as a batch system or a container runs a
job: past the limit the kernel kills the process without a word, so tilemm must refuse beforehand
a problem that does not fit (system_info.cpp reads the limit, plan.cpp keeps room beside it).

  cgroup_limit.py TILEMM BIG_SPEC SMALL_SPEC BACKEND

1. BIG_SPEC (2.5 GiB) under a 1 GiB limit: refused with exit status 3 and the cgroup named, no
   results file written.
2. SMALL_SPEC under limits from 256 MiB down to 32 MiB in steps of 8 MiB, then the 8 MiB above the
   first refusal in steps of 512 KiB: every run passes or is refused (3), none is killed.
3. The same from 512 MiB down to 128 MiB for a double 4096 x 4096 A read from a .npy file (128
   MiB, read in pieces into the matrix) times a B of 8 columns.

Exit 0: passed, 1: failed, 77: no cgroup with a memory limit can be made here (not root; no
cgroup hierarchy at /sys/fs/cgroup; under cgroup v2, memory delegated neither to this process's
cgroup's children nor to the top's).
"""
import contextlib
import os
import struct
import subprocess
import sys
import tempfile
import time

import sweep

MIB = 1 << 20
TIMEOUT_S = 60


CGROUP = "/sys/fs/cgroup"  # where tilemm reads cgroups (system_info.cpp)


def own_cgroups():
    """(v2, hierarchy's folder, path) of each of this process's cgroups that can limit memory,
    from /proc/self/cgroup: cgroup v2's, and v1's memory controller's in its folder "memory"."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            hierarchy, controllers, path = line.rstrip("\n").split(":", 2)
            if hierarchy == "0" and controllers == "":
                yield True, CGROUP, path
            elif "memory" in controllers.split(","):
                yield False, os.path.join(CGROUP, "memory"), path


def make_memory_cgroup():
    """A new cgroup where memory can be limited, (folder, limit file): below this process's own,
    else below the hierarchy's top (a v2 cgroup that holds processes, as this one does, cannot
    delegate memory to the cgroups below it, but the top cgroup may)."""
    for v2, top, path in own_cgroups():
        own = os.path.normpath(top + path)
        for parent in (own, top):
            try:
                if v2:
                    with open(os.path.join(parent, "cgroup.subtree_control")) as f:
                        if "memory" not in f.read().split():
                            continue
                child = os.path.join(parent, "tilemm-test-%d" % os.getpid())
                os.mkdir(child)
            except OSError:
                continue
            try:  # a process may join it (not so across a cgroup namespace's top)
                subprocess.run(["true"], check=True, preexec_fn=lambda: join(child))
            except (OSError, subprocess.SubprocessError):
                os.rmdir(child)
                continue
            return child, "memory.max" if v2 else "memory.limit_in_bytes"
    return None


def join(folder):
    with open(os.path.join(folder, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))


def run(cgroup, limit, command, env, timeout=TIMEOUT_S):
    folder, limit_file = cgroup
    with open(os.path.join(folder, limit_file), "w") as f:
        f.write(str(limit))

    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout,
                              preexec_fn=lambda: join(folder))
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, done.stderr


def refused(status, stderr):
    return status == 3 and "of host memory;" in stderr and "cgroup" in stderr


def check(cgroup, tilemm, big_spec, small_spec, backend, env, tmp):
    results = os.path.join(tmp, "big.json")
    status, stderr = run(cgroup, 1 << 30, [tilemm, big_spec, "--backend", backend, "--json",
                                           results], env)
    if not refused(status, stderr) or "needs 2684485632 bytes" not in stderr:
        print("FAIL: 2.5 GiB under a 1 GiB cgroup limit: exit status %s\n%s" % (status, stderr))
        return 1
    if os.path.exists(results):
        print("FAIL: the refused run wrote %s" % results)
        return 1
    print("ok: 2.5 GiB under a 1 GiB limit refused (3):\n" + stderr.strip().splitlines()[-1])

    return sweep_cgroup(cgroup, [tilemm, small_spec, "--backend", backend, "-q"], env, 256, 32,
                        8) or \
        sweep_cgroup(cgroup, [tilemm, npy_spec(tmp), "--backend", backend, "-q"], env, 512, 128, 8)


def npy_spec(tmp):
    """A spec whose A is a 4096 x 4096 float64 .npy file (rows alike, small finite values)."""
    rows = cols = 4096
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    row = struct.pack("<%dd" % cols, *[(j % 7 - 3) * 0.25 for j in range(cols)])
    with open(os.path.join(tmp, "a.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(row * rows)
    spec = os.path.join(tmp, "from-file.yaml")
    with open(spec, "w") as f:
        f.write("problems:\n  - {name: a-from-file, a: a.npy, n: 8, precision: double, "
                "kernels: kokkos-kernels, repeats: 1, warmup: 0}\n")
    return spec


def sweep_cgroup(cgroup, command, env, top_mib, bottom_mib, step_mib):
    """Limits from top to bottom, then the step above the first refusal in steps of 1/16 of it:
    every run passes or is refused (3); some pass, some are refused. 0: so, 1: not."""
    def run_at(limit, fine_step):
        return run(cgroup, limit, command, env)

    found = sweep.sweep(run_at, refused, top=top_mib * MIB, step=step_mib * MIB,
                        fine=step_mib * MIB // 16, bottom=bottom_mib * MIB)
    if found is None:
        print("FAIL: %s" % command[1])
        return 1
    print("ok: %s: every cgroup limit from %d MiB to %d MiB (steps of %d MiB) and the step above "
          "the first refusal, %d KiB (steps of %d KiB), passed or was refused (3); the lowest that "
          "passed: %d KiB" % (os.path.basename(command[1]), top_mib, bottom_mib, step_mib,
                              found[0] >> 10, step_mib * MIB // 16 >> 10, found[1] >> 10))
    return 0


@contextlib.contextmanager
def memory_cgroup():
    """A cgroup made for the block (make_memory_cgroup(); None where none can be made), removed
    after it."""
    cgroup = make_memory_cgroup()
    try:
        yield cgroup
    finally:
        for _ in range(50 if cgroup else 0):  # a killed process may take a moment to leave it
            try:
                os.rmdir(cgroup[0])
                break
            except OSError:
                time.sleep(0.1)


def main():
    tilemm, big_spec, small_spec, backend = sys.argv[1:5]
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false")
    with memory_cgroup() as cgroup, tempfile.TemporaryDirectory() as tmp:
        if cgroup is None:
            print("SKIP: no cgroup with a memory limit can be made here (below this process's own "
                  "or below the hierarchy's top at %s)" % CGROUP)
            return 77
        return check(cgroup, tilemm, big_spec, small_spec, backend, env, tmp)

if __name__ == "__main__":
    sys.exit(main())
