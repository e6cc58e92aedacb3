#!/usr/bin/env python3
"""Measures what the memory limits of tilemm's plan rest on (plan.cpp), on this machine, and
writes it as JSON: the figures behind tests/README.md's failure list.

  memory_overhead.py TILEMM OUT.json [--old-tilemm TILEMM]     (as root, on a host backend build)

- overhead: peak cgroup usage of a double run (register-tiled and kokkos-kernels, OpenMP) less the
  bytes the plan counts for it (bytes_needed in plan.cpp), for n = 1536, 3072, 6144 on 1 and 8
  threads: what the cgroup reserve (64 MiB and 4 MiB a thread) must hold.
- small_problem: a 256^3 problem on 8 threads under a 100 MB cgroup limit (the reserve is whole).
- ulimit: tests/cli/specs/small.yaml on 2 threads under `ulimit -v` at tests/README.md's limits.
- npy: peak RSS and time of a double 4096 x 4096 A read from a .npy file (times 8 columns), with
  --old-tilemm too for a build to compare with.
Each cgroup run in a cgroup made for it (by tests/reliability/cgroup_limit.py's helper).
"""
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "reliability"))
import cgroup_limit  # noqa: E402

TIMEOUT_S = 600  # a run at n = 6144 on one thread takes a minute or more

MIB = 1 << 20


def spec(folder, name, text):
    path = os.path.join(folder, name + ".yaml")
    with open(path, "w") as f:
        f.write("problems:\n  - {name: %s, %s, repeats: 1, warmup: 0}\n" % (name, text))
    return path


def in_cgroup(measure):
    """measure(cgroup) in a cgroup made for it, so that its peak usage is its own."""
    with cgroup_limit.memory_cgroup() as cgroup:
        if cgroup is None:
            sys.exit("no cgroup with a memory limit can be made here (run as root)")
        return measure(cgroup)


def peak_usage(command, env):
    """Exit status and peak cgroup usage in bytes of one run without a limit."""
    def measure(cgroup):
        folder, limit_file = cgroup
        v2 = limit_file == "memory.max"
        status, _ = cgroup_limit.run(cgroup, "max" if v2 else 1 << 40, command, env, TIMEOUT_S)
        with open(os.path.join(folder, "memory.peak" if v2 else "memory.max_usage_in_bytes")) as f:
            return status, int(f.read())
    return in_cgroup(measure)


def rss_and_time(tilemm, spec_path, env):
    start = time.monotonic()
    child = subprocess.Popen([tilemm, spec_path, "--backend", "openmp", "-q"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    return {"exit": os.waitstatus_to_exitcode(status), "max_rss_kib": usage.ru_maxrss,
            "seconds": round(time.monotonic() - start, 2)}


def version(tilemm):
    return subprocess.run([tilemm, "--version"], capture_output=True, text=True).stdout.split("\n")[0]


def main():
    tilemm, out = sys.argv[1:3]
    old = sys.argv[sys.argv.index("--old-tilemm") + 1] if "--old-tilemm" in sys.argv else None
    env = dict(os.environ, OMP_PROC_BIND="false")
    record = {"tilemm": version(tilemm), "host": platform.node(),
              "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "overhead": [],
              "ulimit": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (1536, 3072, 6144):
            path = spec(tmp, "n%d" % n, "m: %d, n: %d, k: %d, precision: double, kernels: "
                        "[register-tiled, kokkos-kernels]" % (n, n, n))
            counted = 8 * (4 * n * n) + 8 * (n * n + 2 * n)  # A, B, C0, C; reference C, norms
            for threads in (1, 8):
                status, peak = peak_usage([tilemm, path, "--backend", "openmp", "-q"],
                                          dict(env, OMP_NUM_THREADS=str(threads)))
                record["overhead"].append({"n": n, "threads": threads, "exit": status,
                                           "peak_bytes": peak, "counted_bytes": counted,
                                           "overhead_mib": round((peak - counted) / MIB, 1)})
        tiny = spec(tmp, "tiny", "m: 256, n: 256, k: 256, precision: double, kernels: all")
        status, stderr = in_cgroup(lambda cgroup: cgroup_limit.run(
            cgroup, 100 * 10**6, [tilemm, tiny, "--backend", "openmp", "-q"],
            dict(env, OMP_NUM_THREADS="8"), TIMEOUT_S))
        record["small_problem"] = {"limit_bytes": 100 * 10**6, "threads": 8, "exit": status,
                                   "message": stderr.strip().splitlines()[-1:]}
        small = os.path.join(REPO, "tests", "cli", "specs", "small.yaml")
        for mib in (528, 512, 312, 311, 310, 296):
            def limit(kib=mib * 1024):
                resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))
            try:
                done = subprocess.run([tilemm, small, "--backend", "openmp", "-q"],
                                      env=dict(env, OMP_NUM_THREADS="2"), capture_output=True,
                                      text=True, timeout=20, preexec_fn=limit)
                status, said = done.returncode, done.stderr.strip().splitlines()[-1:]
            except subprocess.TimeoutExpired:
                status, said = None, ["no exit within 20 s"]
            record["ulimit"].append({"ulimit_v_mib": mib, "threads": 2, "exit": status,
                                     "stderr_last_line": said})
        from_file = cgroup_limit.npy_spec(tmp)
        record["npy"] = {"spec": "double A 4096 x 4096 from a .npy file times 8 columns",
                         "runs": [dict(rss_and_time(tilemm, from_file, env),
                                       tilemm=version(tilemm))]}
        if old:
            record["npy"]["runs"].append(dict(rss_and_time(old, from_file, env),
                                              tilemm=version(old)))
        # The record names files as the repository does: no folder of this machine in it.
        text = json.dumps(record, indent=1).replace(tmp, "TMP").replace(REPO + "/", "")
    with open(out, "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
