#!/usr/bin/env python3
"""Runs perf/plot.py on the recorded H200 results (the GPU and its host, tilemm CLI JSON) and on a
synthetic Google Benchmark file (tests/perf/data/gbench-synthetic.json), then checks what it wrote:
the PNGs, the summary's rows and columns, the vendor fractions, dropped failures, and the
performance-portability figure against a harmonic mean computed here from the raw JSON.

  python3 tests/perf/test_plot.py       exit 0: passed, 1: failed, 77: no pandas/matplotlib here

The expected values are computed from the input files with the standard library only, so that the
test does not share code (or mistakes) with the script it checks.
"""
import csv
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# The checks shared with plot_study_checks.py, beside this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from plot_checks import (CLI_FILES, DATA, FAILURES, FIXTURE, PLOT, PNG_SIGNATURE, ROOT, SYNTHETIC,  # noqa: E402
                         check, close, expected_efficiency, harmonic_mean, number, plot_in_process,
                         plot_run, raw_cli_results, summary_row)
from plot_study_checks import (check_bad_inputs, check_default_out, check_scaling,  # noqa: E402
                               check_thread_scaling, check_weak_baseline)


def check_pngs(out):
    for name in ("gflops_vs_size.png", "vendor_fraction.png", "roofline.png", "portability.png"):
        path = out / name
        data = path.read_bytes() if path.exists() else b""
        check(data[:8] == PNG_SIGNATURE and len(data) > 10000, "%s is a PNG (%d bytes)" % (name, len(data)))
        if data[12:16] == b"IHDR":
            width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
            check(width >= 400 and height >= 300, "%s is %dx%d pixels" % (name, width, height))


def check_summary(out, results, stdout):
    with open(out / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    needed = {"platform", "device", "backend", "kernel", "precision", "layout", "trans", "m", "n", "k",
              "tile", "gflops", "time_s", "error", "tolerance", "verdict", "vendor_gflops",
              "vendor_fraction", "intensity", "source", "git_hash", "date"}
    check(needed <= set(rows[0]) if rows else False, "summary.csv has the columns %s" % sorted(needed))
    # 12 registered benchmarks in the fixture (repetitions and aggregates fold into one row each).
    check(len(rows) == len(results) + 12, "summary.csv has %d rows, expected %d" % (len(rows), len(results) + 12))

    vendor = [r for r in rows if r["kernel"] == "kokkos-kernels" and r["verdict"] == "pass"]
    check(vendor and all(number(r["vendor_fraction"]) == 1.0 for r in vendor),
          "vendor fraction of all %d passing kokkos-kernels rows is 1" % len(vendor))

    def one(**match):
        found = [r for r in rows if all(r[k] == str(v) for k, v in match.items())]
        return found[0] if len(found) == 1 else None

    raw = {(r["kernel"], r["n"]): r["gflops"] for r in results
           if r["backend"] == "cuda" and r["precision"] == "float" and r["m"] == r["n"] == r["k"] == 4096}
    row = one(platform="NVIDIA H200 (cuda)", kernel="register-tiled", precision="float", m=4096, n=4096, k=4096)
    check(row is not None and close(number(row["vendor_fraction"]),
                                    raw[("register-tiled", 4096)] / raw[("kokkos-kernels", 4096)]),
          "H200 register-tiled float n=4096: vendor fraction = its GFLOP/s / kokkos-kernels' from the JSON")
    check(row is not None and row["git_hash"] and row["source"].endswith(".json"),
          "summary rows carry the git hash and the source file")
    check(row is not None and row["vendor_library"] == "",
          "a result file from before the vendor library was recorded leaves it empty")

    rt = one(platform=SYNTHETIC, kernel="register-tiled", precision="float", m=1024, n=1024, k=1024)
    check(rt is not None and rt["vendor_library"] == "OpenBLAS 0.3.21 fixture Prescott MAX_THREADS=4",
          "summary rows name the BLAS the benchmark context recorded")
    check(rt is not None and close(number(rt["gflops"]), 48.0),
          "Google Benchmark repetitions: the median aggregate (48 GFLOP/s) is used, not the mean or a run")
    check(rt is not None and close(number(rt["time_s"]), 2.0 * 1024 ** 3 / 48e9),
          "Google Benchmark real_time in ms becomes seconds")
    skinny = one(platform=SYNTHETIC, kernel="register-tiled", precision="float", m=2048, n=64, k=512)
    traffic = 4 * (2048 * 512 + 512 * 64 + 2 * 2048 * 64)
    check(skinny is not None and close(number(skinny["intensity"]), 2.0 * 2048 * 64 * 512 / traffic)
          and skinny["layout"] == "left" and skinny["trans"] == "NT",
          "beta != 0 benchmark: intensity from the byte count with C read, layout and ops parsed")
    check(skinny is not None and close(number(skinny["vendor_fraction"]), 0.5),
          "vendor matched on layout, ops and beta (4 / 8 GFLOP/s)")

    tiles = sorted(r["tile"] for r in rows if r["platform"] == SYNTHETIC and r["kernel"] == "register-tiled"
                   and r["m"] == r["n"] == r["k"] == "512")
    check(tiles == ["128x256x256/8x16", "64x64x256/4x4"],
          "two tiles of one problem (one benchmark name, two families) stay two rows")

    failed = one(platform=SYNTHETIC, kernel="tiled", precision="float", m=1024, n=1024, k=1024)
    errored = one(platform=SYNTHETIC, kernel="naive", precision="float", m=1024, n=1024, k=1024)
    check(failed is not None and failed["verdict"] == "fail" and failed["vendor_fraction"] == ""
          and close(number(failed["error"]), 0.5),
          "a benchmark stopped with 'validation failed' is kept as 'fail', its error read from the message")
    check(errored is not None and errored["verdict"] == "error" and errored["gflops"] == "",
          "a benchmark stopped with an error is kept as 'error', without GFLOP/s")
    check("dropped from the plots: 2 results" in stdout, "the run says that 2 results were dropped")


def load_reader():
    """perf/plotting/read.py, the part of perf/plot.py that reads result files."""
    sys.path.insert(0, str(PLOT.parent))
    from plotting import read
    return read


def check_gpu_telemetry():
    """A GPU result file with the clock and power (2026-11-25 on) carries them into the summary rows;
    one from before leaves them empty."""
    plot = load_reader()
    name = "2026-11-25-telemetry-on1.json"
    with open(ROOT / "perf" / "results" / "h200" / name) as f:
        rows = plot.read_cli(json.load(f), name)
    double = [r for r in rows if r["kernel"] == "register-tiled" and r["precision"] == "double"
              and r["m"] == 4096]
    check(len(double) == 1 and double[0]["sm_clock_mhz"] == 1920.0
          and close(double[0]["power_w"], 671.085) and double[0]["power_capped"] == 1.0,
          "the H200's double run at n = 4096 reads 1920 MHz, 671 W, capped, as the file has it")
    with open(CLI_FILES[0]) as f:
        old = plot.read_cli(json.load(f), CLI_FILES[0])
    check(all(r["sm_clock_mhz"] is None and r["power_w"] is None for r in old),
          "a result file from before the telemetry leaves it empty")


def check_vendor_library_names():
    """A BLAS known only by its file (MKL, the reference BLAS) is named by that file in the summary."""
    plot = load_reader()
    unknown = {"blas": "unidentified BLAS", "blas_library": "/opt/intel/lib/libmkl_rt.so.2"}
    check(plot.vendor_library_of(unknown) == "unidentified BLAS (libmkl_rt.so.2)",
          "an unidentified BLAS is named by its file")
    generic = {"blas": "unidentified BLAS",
               "blas_library": "/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3"}
    check(plot.vendor_library_of(generic) == "unidentified BLAS (blis-openmp/libblas.so.3)",
          "a generic libblas.so is named with its folder")
    known = {"blas": "BLIS 0.9.0", "blas_library": "/usr/lib/blis-openmp/libblis.so.4"}
    check(plot.vendor_library_of(known) == "BLIS 0.9.0", "a BLAS that names itself keeps its name")
    check(plot.vendor_library_of(dict(known, blas_threads="1")) == "BLIS 0.9.0 on 1 thread",
          "a BLAS with a thread count of its own says on how many threads it ran")


NEW_FILES = {"square-gpu": str(ROOT / "perf" / "results" / "h200" / "2026-11-26-square-gpu-3bebfb9.json"),
             "small-skinny": str(DATA / "2026-11-26-h200-small-skinny-3bebfb9.json")}


def check_figures(tmp):
    """The BLAS in the legend, one figure per study of other shapes, error bars, and every point
    inside its axes, on the H200's GPU studies and the synthetic benchmark file."""
    out = tmp / "figures"
    status, printed, figures = plot_in_process(list(NEW_FILES.values()) + [FIXTURE], out)
    check(status == 0, "the H200 studies and the fixture are plotted (exit status %d)" % status)
    size = figures.get("gflops_vs_size.png", {})
    check("kokkos-kernels (the BLAS in each panel's title)" in size.get("legend", [])
          and any("kokkos-kernels: cuBLAS 13.1.0" in t for t in size.get("titles", []))
          and any("kokkos-kernels: OpenBLAS 0.3.21" in t for t in size.get("titles", [])),
          "two BLAS: the legend points to the panels' titles, which name cuBLAS and OpenBLAS")
    shapes = figures.get("shapes_small-skinny.png", {})
    check("kokkos-kernels (cuBLAS 13.1.0)" in shapes.get("legend", [])
          and "tall-skinny\n4096x64x4096" in shapes.get("xlabels", []),
          "the small-skinny study gets shapes_small-skinny.png, its shapes on the x axis, cuBLAS named")
    other = figures.get("shapes_gbench-synthetic.png", {})
    check("kokkos-kernels (OpenBLAS 0.3.21)" in other.get("legend", [])
          and "2048x64x512\nleft, op NT, beta!=0" in other.get("xlabels", []),
          "the benchmark file's skinny problem gets a figure of its own, its layout, ops and beta named")
    check("shapes_square-gpu.png" not in figures, "a study of square products only gets no shapes figure")
    check(size.get("errorbars", 0) > 10 and shapes.get("errorbars", 0) > 10,
          "the size and shapes figures show the spread of the timed runs as error bars (%d, %d)"
          % (size.get("errorbars", 0), shapes.get("errorbars", 0)))
    for name, figure in sorted(figures.items()):
        check(not figure["outside"] and not figure["unlabelled"],
              "%s: every point and error bar inside its axes, log axes labelled at both ends %s"
              % (name, figure["outside"] + figure["unlabelled"]))
    check_spread(out, printed)


def check_spread(out, printed):
    """summary.csv's spread: the CLI's fastest and slowest run; a benchmark's standard deviation,
    held within its fastest and slowest repetition."""
    with open(NEW_FILES["square-gpu"]) as f:
        raw = [r for r in json.load(f)["results"] if r["kernel"] == "register-tiled"
               and r["precision"] == "float" and r["m"] == 4096][0]
    flop = 2.0 * 4096 ** 3 / 1e9
    row = summary_row(out, platform="NVIDIA H200 (cuda)", kernel="register-tiled", precision="float",
                      m=4096, n=4096, k=4096)
    check(row is not None and row["spread"] == "min..max"
          and close(number(row["gflops_low"]), flop / raw["time_max_s"])
          and close(number(row["gflops_high"]), flop / raw["time_min_s"]),
          "a CLI result's error bar runs from its slowest to its fastest timed run")
    times = [2.0 * 1024 ** 3 / (g * 1e9) for g in (30.0, 48.0, 50.0)]
    deviation = statistics.stdev(times)
    row = summary_row(out, platform=SYNTHETIC, kernel="register-tiled", precision="float", m=1024)
    check(row is not None and row["spread"] == "median -/+ stddev"
          and close(number(row["gflops_low"]), 48.0 * times[1] / (times[1] + deviation))
          and close(number(row["gflops_high"]), 50.0),
          "a benchmark's error bar is its median -/+ its standard deviation, cut at its fastest run")


def check_raw_times():
    """A result with its raw times and no standard deviation: the deviation is computed from them."""
    read = load_reader()
    result = {"time_median_s": 1.0, "time_min_s": 0.85, "time_max_s": 1.1, "times_s": [0.85, 1.0, 1.05]}
    fast, slow, what = read.cli_spread(result)
    deviation = statistics.stdev(result["times_s"])
    check(what == "median -/+ stddev" and close(fast, max(1.0 - deviation, 0.85))
          and close(slow, min(1.0 + deviation, 1.1)),
          "raw times without a standard deviation: the error bar is the median -/+ theirs")


def check_one_platform(tmp):
    """One platform: no portability figure or table, a note instead, exit status 0."""
    out = tmp / "one-platform"
    with open(NEW_FILES["square-gpu"]) as f:
        doc = json.load(f)
    for r in doc["results"]:  # a run that recorded a standard deviation (10% of the median)
        r["time_stddev_s"] = 0.1 * r["time_median_s"]
    path = tmp / "with-stddev.json"
    path.write_text(json.dumps(doc))
    status, printed, figures = plot_in_process([path], out)
    check(status == 0 and "portability (float): one platform (NVIDIA H200 (cuda))" in printed
          and "portability.csv and portability.png not written" in printed
          and not (out / "portability.csv").exists() and "portability.png" not in figures,
          "one platform: a note, no portability figure or table, exit status 0")
    check("kokkos-kernels (cuBLAS 13.1.0)" in figures.get("gflops_vs_size.png", {}).get("legend", []),
          "one BLAS: the legend names it beside kokkos-kernels")
    raw = [r for r in doc["results"] if r["kernel"] == "tiled" and r["precision"] == "double"
           and r["m"] == 2048][0]
    row = summary_row(out, kernel="tiled", precision="double", m=2048)
    flop = 2.0 * 2048 ** 3 / 1e9
    check(row is not None and row["spread"] == "median -/+ stddev"
          and close(number(row["gflops_low"]), flop / min(1.1 * raw["time_median_s"], raw["time_max_s"]))
          and close(number(row["gflops_high"]), flop / max(0.9 * raw["time_median_s"], raw["time_min_s"])),
          "a result with time_stddev_s: its error bar is the median -/+ it, within the runs' range")


def check_portability(out, results, stdout):
    with open(out / "portability.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    figure = {(r["kernel"], r["precision"]): number(r["portability"]) for r in rows}
    platforms = sorted({r["platform"] for r in results})
    # register-tiled float: the recorded H200 GPU and host, and the fixture (48 / 96 at n = 1024).
    efficiencies = [expected_efficiency(results, p, "register-tiled", "float") for p in platforms] + [0.5]
    expected = harmonic_mean(efficiencies)
    print("     register-tiled float: efficiencies %s -> harmonic mean %.6f" %
          (", ".join("%.6f" % e for e in efficiencies), expected))
    check(len(platforms) == 2 and close(figure.get(("register-tiled", "float")), expected),
          "portability of register-tiled float = harmonic mean computed here (%.6f)" % expected)
    # tiled float: at n = 1024 the fixture's tiled failed, so its largest shared square is 512.
    expected = harmonic_mean([expected_efficiency(results, p, "tiled", "float") for p in platforms]
                             + [20.0 / 80.0])
    check(close(figure.get(("tiled", "float")), expected),
          "portability of tiled float uses the fixture's n = 512, the largest valid shared size (%.6f)" % expected)
    check(figure.get(("tiled", "double")) == 0.0, "tiled double: no result on the fixture platform -> 0")
    check(figure.get(("naive", "float")) == 0.0, "naive float: not run on the CPU platforms -> 0")
    check(figure.get(("kokkos-kernels", "double")) == 1.0, "kokkos-kernels against itself -> 1")
    inputs = [r for r in rows if r["kernel"] == "register-tiled" and r["precision"] == "float"]
    check(len(inputs) == 3 and all(r["n"] for r in inputs),
          "portability.csv lists each platform's efficiency and the size used")
    check("Performance portability" in stdout, "the figure is printed as a table")
    # The best tilemm kernel: on each platform the highest efficiency of tilemm's kernels there.
    for precision in ("float", "double"):
        best = {r["platform"]: r for r in rows
                if r["kernel"] == "best tilemm kernel" and r["precision"] == precision}
        tops = {p: max(number(r["efficiency"]) for r in rows if r["platform"] == p
                       and r["precision"] == precision and r["kernel"] not in ("kokkos-kernels",
                                                                                "best tilemm kernel"))
                for p in best}
        check(len(best) == 3 and all(close(number(best[p]["efficiency"]), tops[p]) for p in best)
              and all(best[p]["note"].startswith("the best: ") for p in best if tops[p] > 0),
              "best tilemm kernel (%s): each platform's highest efficiency, its kernel named" % precision)
        check(close(figure.get(("best tilemm kernel", precision)), harmonic_mean(list(tops.values()))),
              "best tilemm kernel (%s): the harmonic mean of those" % precision)


def main():
    if not all(importlib.util.find_spec(m) for m in ("pandas", "numpy", "matplotlib")):
        print("SKIP: %s has no pandas/numpy/matplotlib (Debian: python3-pandas python3-matplotlib)"
              % sys.executable)
        return 77
    check(all(os.path.exists(f) for f in CLI_FILES), "found the 3 recorded H200 result files")
    results = raw_cli_results()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "plots"
        junk = Path(tmp) / "not-a-result.json"
        junk.write_text('{"hello": 1}')
        env = dict(os.environ, MPLCONFIGDIR=tmp)  # matplotlib's cache, not the user's home
        os.environ["MPLCONFIGDIR"] = tmp  # for the runs in this process
        # The fixture named twice: read once.
        run = subprocess.run([sys.executable, str(PLOT)] + CLI_FILES +
                             [str(FIXTURE), str(FIXTURE), str(junk), "--out", str(out),
                              "--peak", "Synthetic Test CPU:float=200", "--bandwidth", "Synthetic Test CPU=20"],
                             capture_output=True, text=True, env=env)
        print(run.stdout + run.stderr)
        check(run.returncode == 1, "perf/plot.py exited with 1, a file left out (got %d)" % run.returncode)
        check("not-a-result.json: skipped" in run.stderr and "1 of 5 files could not be read" in run.stderr,
              "a JSON file of neither format is skipped with a message, and named at the end")
        check("the same content as" in run.stderr, "a file named twice is read once, with a message")
        check("no peak known for Intel(R) Xeon(R) Processor" in run.stdout,
              "the CPU roofline without --peak is skipped with a message")
        if run.returncode == 1:
            check_pngs(out)
            check_summary(out, results, run.stdout)
            check_portability(out, results, run.stdout)
        # A bad --peak is refused before the folder is touched: the plots made above survive.
        before = sorted(p.name for p in out.iterdir())
        bad = plot_run([FIXTURE, "--out", out, "--peak", "Synthetic Test CPU:double=lots"])
        check(bad.returncode == 2 and "expected a number after '='" in bad.stderr,
              "a bad --peak value is refused with a message (exit status 2)")
        check(sorted(p.name for p in out.iterdir()) == before, "a bad --peak leaves the plot folder as it was")
        zero = plot_run([FIXTURE, "--out", out, "--bandwidth", "Synthetic Test CPU=0"])
        check(zero.returncode != 0 and "expected a positive number" in zero.stderr
              and sorted(p.name for p in out.iterdir()) == before,
              "a bandwidth of 0 is refused before the folder is touched")
        check_vendor_library_names()
        check_gpu_telemetry()
        check_weak_baseline(Path(tmp))
        check_bad_inputs(Path(tmp))
        check_default_out(Path(tmp))
        check_figures(Path(tmp))
        check_one_platform(Path(tmp))
        check_thread_scaling(Path(tmp))
        check_raw_times()
        check_scaling(Path(tmp))
        help_run = plot_run(["--help"])
        check(help_run.returncode == 0 and "portability" in help_run.stdout, "--help explains the outputs")
    if FAILURES:
        print("\n%d checks failed" % len(FAILURES))
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
