#!/usr/bin/env python3
"""Smoke test of tilemm-bench: runs it for a moment on tiny sizes and checks what a study script
reads from its Google Benchmark JSON (names, counters, context), that the console gets one line
of the context, then its exit status on bad input. With a BLAS whose gemm is wrong (the suite's
libtilemm_wrong_gemm.so) it checks instead that the bench blames kokkos-kernels, as the CLI does,
and not the kernels compared with the reference that BLAS computed (exit 77 where the BLAS that
kokkos-kernels calls is not the preloaded one).

  check_bench.py TILEMM_BENCH SPEC
  check_bench.py TILEMM_BENCH --wrong-blas LIBRARY
"""
import json
import os
import subprocess
import sys
import tempfile

KERNELS = ["naive", "tiled", "register-tiled", "tensor-tiled", "ozaki", "kokkos-kernels"]
DOUBLE_ONLY = ["ozaki"]
CONTEXT = ["tilemm_version", "git_hash", "kokkos_version", "kokkos_kernels_version", "backend",
           "device", "concurrency"]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(bench, *args, env=None):
    proc = subprocess.run([bench, *args], capture_output=True, text=True, timeout=600, env=env)
    return proc.returncode, proc.stdout + proc.stderr


def check_wrong_blas(bench, library):
    env = dict(os.environ, LD_PRELOAD=library, ASAN_OPTIONS=":".join(
        filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"])))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        rc, text = run(bench, "--sizes", "64", "--benchmark_min_time=0.001",
                       "--benchmark_out=" + out, "--benchmark_out_format=json", env=env)
        print(text)
        with open(out) as f:
            doc = json.load(f)
    if "wrong_gemm" not in doc["context"].get("blas_library", ""):
        print("skipped: kokkos-kernels calls %r, not the preloaded BLAS"
              % doc["context"].get("blas_library"))
        sys.exit(77)
    if rc != 1:
        fail("exit status %d with a wrong BLAS, expected 1" % rc)
    runs = [b for b in doc["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
    for b in runs:
        kernel = b["name"].split("/")[1]
        if kernel == "kokkos-kernels":
            if not (b.get("error_occurred") and
                    b.get("error_message", "").startswith("validation failed: freivalds_error")):
                fail("%s passed with a wrong BLAS: %r" % (b["name"], b))
        elif b.get("error_occurred") or b.get("reference_valid") != 0:
            fail("%s failed, or its reference was trusted, with a wrong BLAS: %r" % (b["name"], b))
    print("tilemm-bench with a wrong BLAS: kokkos-kernels fails, the other %d benchmarks pass"
          % sum(1 for b in runs if "/kokkos-kernels/" not in b["name"]))


def main(bench, spec):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        rc, text = run(bench, "--sizes", "33,16x24x40", "--benchmark_min_time=0.001",
                       "--benchmark_out=" + out, "--benchmark_out_format=json")
        if rc != 0:
            fail("exit status %d:\n%s" % (rc, text))
        if "kokkos_configuration" in text or "the whole context goes into the JSON" not in text:
            fail("the console has more (or less) of the context than its one line:\n%s" % text)
        with open(out) as f:
            doc = json.load(f)
    for key in CONTEXT:
        if not doc["context"].get(key):
            fail("context lacks %r" % key)
    runs = [b for b in doc["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
    expected = 2 * 2 * (2 * len(KERNELS) - len(DOUBLE_ONLY))
    if len(runs) != expected:
        fail("%d benchmarks, expected %d (2 sizes x 2 layouts x %d kernels in double, %d in float)"
             % (len(runs), expected, len(KERNELS), len(KERNELS) - len(DOUBLE_ONLY)))
    for b in runs:
        parts = b["name"].split("/")
        kernel, backend, precision, layout, op = parts[1:6]
        m, n, k = (int(p.split(":")[1]) for p in parts[6:9])
        if parts[0] != "gemm" or kernel not in KERNELS or op != "NN" or parts[-1] != "manual_time":
            fail("unexpected name %r" % b["name"])
        if b.get("error_occurred"):
            fail("%s: %s" % (b["name"], b.get("error_message")))
        size = 4 if precision == "float" else 8
        if b["bytes"] != size * (m * k + k * n + m * n):
            fail("%s: bytes %r" % (b["name"], b["bytes"]))
        seconds = b["real_time"] * {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1}[b["time_unit"]]
        flops = 2.0 * m * n * k
        if not abs(b["FLOP/s"] * seconds / flops - 1) < 1e-3:
            fail("%s: FLOP/s %r is not 2mnk over the time" % (b["name"], b["FLOP/s"]))
        if not (0 <= b["error"] <= b["tolerance"] and 0 <= b["freivalds_error"] <= b["tolerance"]
                and b["reference_valid"] == 1):
            fail("%s: errors %r, %r above tolerance %r" % (b["name"], b["error"],
                                                           b["freivalds_error"], b["tolerance"]))
        if kernel in ("tiled", "register-tiled", "tensor-tiled") and not b.get("label"):
            fail("%s: no tile in the label" % b["name"])
        # On a GPU whose NVML tilemm opened, the CLI's gpu_* readings as counters; none on a CPU.
        if str(doc["context"].get("gpu_telemetry", "")).startswith("NVML "):
            if not (b.get("gpu_sm_clock_mhz", 0) > 0 and 0 <= b.get("gpu_power_capped", -1) <= 1):
                fail("%s: no GPU clock or capped fraction: %r" % (b["name"], b))
        elif "gpu_sm_clock_mhz" in b:
            fail("%s: a GPU clock without NVML: %r" % (b["name"], b))

    rc, text = run(bench, "--spec", spec, "--kernels", "tiled,kokkos-kernels",
                   "--benchmark_min_time=0.001")
    if rc != 0 or text.count("gemm/tiled/") != 2 or text.count("gemm/kokkos-kernels/") != 2:
        fail("--spec with --kernels: exit %d, output:\n%s" % (rc, text))
    rc, text = run(bench, "--kernels", "nosuch")
    if rc != 2 or "nosuch" not in text:
        fail("--kernels nosuch: exit %d (expected 2), output:\n%s" % (rc, text))
    print("tilemm-bench smoke test passed: %d benchmarks" % len(runs))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[2] == "--wrong-blas":
        check_wrong_blas(sys.argv[1], sys.argv[3])
    elif len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
