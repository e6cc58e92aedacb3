#!/usr/bin/env python3
"""Writes gbench-synthetic.json: a small, made-up tilemm-bench result in Google Benchmark's JSON
format, for tests/perf/test_plot.py. The numbers are invented and round so that the test can check
them by hand; none of them is a measurement.

What it holds (platform "Synthetic Test CPU (openmp, 4 threads)"):
  float  512   tiled 20, register-tiled 40, kokkos-kernels 80 GFLOP/s          (single runs)
  float  512   register-tiled with a second tile, 30 GFLOP/s: the same name, another family
  float  1024  register-tiled repeats 30, 48, 50 (median 48, mean 42.67, standard deviation of the
               times 16.04 ms), kokkos-kernels median 96 (repeats 90, 96, 97)
  float  1024  tiled fails validation (stopped as tilemm-bench does: SkipWithError, no counters;
               dropped), naive stopped with another error (dropped)
  double 1024  register-tiled 10, kokkos-kernels 40; no tiled at all
  float  2048x64x512, layout left, op NT, beta != 0 (byte count with C read): register-tiled 4,
               kokkos-kernels 8

  tests/perf/data/make_gbench_fixture.py > tests/perf/data/gbench-synthetic.json
"""
import json
import statistics
import sys

SIZE = {"float": 4, "double": 8}
EPS = {"float": 1.1920929e-07, "double": 2.220446049250313e-16}


def counters(precision, m, n, k, gflops, beta_nonzero=False, error=None):
    traffic = SIZE[precision] * (m * k + k * n + m * n * (2 if beta_nonzero else 1))
    tolerance = (k + 2) * EPS[precision]
    return {"FLOP/s": gflops * 1e9, "bytes": float(traffic), "intensity": 2.0 * m * n * k / traffic,
            "error": 2.0 * EPS[precision] if error is None else error, "tolerance": tolerance}


FAMILIES = {}


def family(name, tile):
    """Google Benchmark numbers each registered benchmark (family) in order."""
    return FAMILIES.setdefault((name, tile), len(FAMILIES))


def run(kernel, precision, m, n, k, gflops, tile="", layout="right", ops="NN", repeats=None,
        index=0, **extra):
    name = "gemm/%s/openmp/%s/%s/%s/m:%d/n:%d/k:%d/manual_time" % (kernel, precision, layout, ops, m, n, k)
    if repeats:
        name += "/repeats:%d" % repeats
    milliseconds = 2.0 * m * n * k / (gflops * 1e9) * 1e3
    entry = {"name": name, "family_index": family(name, tile), "per_family_instance_index": 0,
             "run_name": name,
             "run_type": "iteration", "repetitions": repeats or 1, "repetition_index": index,
             "threads": 1, "iterations": 10, "real_time": milliseconds, "cpu_time": milliseconds,
             "time_unit": "ms"}
    entry.update(counters(precision, m, n, k, gflops, **extra))
    entry["label"] = tile
    return entry


def aggregate(base, kind, value_gflops, milliseconds=None):
    """A repetition aggregate as Google Benchmark writes it (name = run_name + '_' + kind); a
    standard deviation is a time (`milliseconds`), not a rate."""
    entry = dict(base, name=base["run_name"] + "_" + kind, run_type="aggregate", aggregate_name=kind,
                 aggregate_unit="time")
    entry.pop("repetition_index")
    m, n, k = (int(part.split(":")[1]) for part in base["run_name"].split("/")[6:9])
    if milliseconds is None:
        milliseconds = 2.0 * m * n * k / (value_gflops * 1e9) * 1e3
    entry["real_time"] = entry["cpu_time"] = milliseconds
    entry["FLOP/s"] = value_gflops * 1e9
    return entry


def stopped(kernel, message):
    """A benchmark stopped with SkipWithError: Google Benchmark writes no counters and no time."""
    name = "gemm/%s/openmp/float/right/NN/m:1024/n:1024/k:1024/manual_time" % kernel
    return {"name": name, "family_index": family(name, ""), "per_family_instance_index": 0,
            "run_name": name, "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
            "threads": 1, "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ms",
            "error_occurred": True, "error_message": message, "label": ""}


def main():
    benchmarks = [
        run("tiled", "float", 512, 512, 512, 20.0, tile="32x32x32"),
        run("register-tiled", "float", 512, 512, 512, 40.0, tile="128x256x256/8x16"),
        run("register-tiled", "float", 512, 512, 512, 30.0, tile="64x64x256/4x4"),
        run("kokkos-kernels", "float", 512, 512, 512, 80.0),
    ]
    # Repetitions: three runs, then the aggregates. The median (48) must win over the mean (42.67).
    # The standard deviation of the three times (16.04 ms) reaches past the fastest run (50).
    reps = [run("register-tiled", "float", 1024, 1024, 1024, g, tile="128x256x256/8x16", repeats=3,
                index=i) for i, g in enumerate((30.0, 48.0, 50.0))]
    stddev = statistics.stdev(r["real_time"] for r in reps)
    benchmarks += reps + [aggregate(reps[0], "mean", 128.0 / 3), aggregate(reps[0], "median", 48.0),
                          aggregate(reps[0], "stddev", 10.07, milliseconds=stddev),
                          aggregate(reps[0], "cv", 0.236)]
    vendor = [run("kokkos-kernels", "float", 1024, 1024, 1024, g, repeats=3, index=i)
              for i, g in enumerate((90.0, 96.0, 97.0))]
    benchmarks += vendor + [aggregate(vendor[0], "mean", 94.33), aggregate(vendor[0], "median", 96.0)]
    benchmarks += [
        stopped("tiled", "validation failed: error 0.500000 > tolerance 0.000122"),
        stopped("naive", "synthetic: the kernel refused this launch"),
        run("register-tiled", "double", 1024, 1024, 1024, 10.0, tile="128x128x256/8x8"),
        run("kokkos-kernels", "double", 1024, 1024, 1024, 40.0),
        run("register-tiled", "float", 2048, 64, 512, 4.0, layout="left", ops="NT", beta_nonzero=True),
        run("kokkos-kernels", "float", 2048, 64, 512, 8.0, layout="left", ops="NT", beta_nonzero=True),
    ]
    context = {
        "date": "2026-11-22T03:00:00+00:00", "host_name": "fixture", "executable": "tilemm-bench",
        "num_cpus": 4, "mhz_per_cpu": 2000, "cpu_scaling_enabled": False,
        "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1}],
        "load_avg": [0.1, 0.1, 0.1], "library_build_type": "release",
        "tilemm_version": "0.1.0", "git_hash": "fixture0000", "kokkos_version": "4.6.1",
        "kokkos_kernels_version": "4.6.2", "backend": "openmp", "device": "Synthetic Test CPU",
        "concurrency": "4", "hostname": "fixture", "utc_time": "2026-11-22T03:00:00Z",
        "blas": "OpenBLAS 0.3.21 fixture Prescott MAX_THREADS=4", "blas_core": "Prescott",
    }
    json.dump({"context": context, "benchmarks": benchmarks}, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
