#!/usr/bin/env python3
"""Turns tilemm result files into a study: a CSV summary, plots and the performance-portability figure.

  perf/plot.py perf/results/*.json --out perf/plots
  perf/plot.py results/*.json --peak "Intel(R) Xeon(R) Processor:double=$PEAK_GFLOPS" \\
               --bandwidth "Intel(R) Xeon(R) Processor=$STREAM_GBS"     (your machine's figures)

Inputs, told apart by their content (any number, from any machine and backend):
  - the tilemm CLI's --json file  {"schema": "tilemm.results/1", "context": {...}, "results": [...]}
    (its GFLOP/s come from the median time of the timed runs; the --csv twin is not read: it lacks
    the run's context)
  - Google Benchmark JSON from tilemm-bench (--benchmark_out=F --benchmark_out_format=json); with
    repetitions the median aggregate is used, else the runs (a run's time is the mean of its
    iterations; several runs, their median)
A file named twice, or two copies of one file, is read once.

Exit status: 0 (also when a figure cannot be made, such as the portability figure of a single
platform: a line says why); 1 when no file held results, or when some files could not be read
(the study is then made from the others, and the files left out are named); 2 for a bad option.

Outputs, in --out (default: plots/ in the current folder; the repository's perf/plots/ holds the
report's figures, and is written only when named):
  summary.csv          one row per result, with the fraction of the vendor library at the same problem,
                       the spread of its timed runs (and on a GPU its SM clock, board power and time
                       at the power cap, where the run recorded them)
  gflops_vs_size.png   GFLOP/s against n for square products, one panel per platform and precision
  vendor_fraction.png  kernel GFLOP/s / kokkos-kernels GFLOP/s against n, same panels
  shapes_STUDY.png     GFLOP/s per problem shape, for each study (spec) with other than square
                       products (rectangular, small and skinny shapes)
  thread_scaling.png   GFLOP/s against the thread count, where one device and host backend was run
                       at several (a thread-scaling study: perf/slurm/threads.sbatch, perf/cpu-study.sh),
                       each kernel's efficiency at the most threads beside its last point;
                       thread_scaling.csv the efficiencies at every count
  roofline.png         GFLOP/s against arithmetic intensity under the compute and bandwidth roofs
                       (platforms with a known peak only)
  portability.csv/.png the performance-portability figure and its inputs (two platforms or more)
  scaling.png/.csv     distributed runs (results with ranks) against the one-process result of the
                       same kernel, precision and problem family ("weak-4" and "weak-1": "weak"):
                       weak-scaling efficiency and strong-scaling speed-up against the ranks
Distributed results are in summary.csv and the scaling figure only; the other figures and the
portability figure are of one process.
Every point is a problem's best result; its error bar is the spread of that result's timed runs.
The legend names the library behind kokkos-kernels (cuBLAS, OpenBLAS, ...) as each result file's
context records it, or says that each panel's title names it when the panels' libraries differ.

Definitions:
  platform          device + backend (+ thread count on host backends, since CPU model names from
                    virtual machines are often generic)
  vendor library    the kokkos-kernels kernel (KokkosBlas::gemm: cuBLAS on CUDA, the linked BLAS on
                    CPU backends), matched on platform, precision, layout, ops, m, n, k and whether
                    beta is 0. summary.csv's vendor_fraction: against the same file's result when
                    it has one, else the fastest one recorded; best_fraction, which the plots and
                    the portability figure use: against the fastest one recorded on the platform
  spread            the median -/+ the standard deviation of the timed runs where the result has it
                    (time_stddev_s or raw times; Google Benchmark's stddev aggregate), held within
                    the fastest and slowest run; else the fastest and slowest run (time_min_s,
                    time_max_s; several benchmark runs); summary.csv: gflops_low, gflops_high
  intensity         2mnk / minimal bytes: A and B read once, C written once, C read too if beta != 0
  portability       Pennycook's metric: per kernel and precision, the harmonic mean over platforms of
                    the efficiency (kernel / vendor GFLOP/s); the efficiency on a platform is taken at
                    the largest square n where both have a valid result (the kernel's best tile,
                    layout or op there, over the platform's best vendor result for it); 0 when the
                    kernel has no such result on some platform; not computed for a precision with
                    one platform. Beside the kernels, "best tilemm kernel": on each platform the
                    highest of tilemm's kernels' efficiencies there (its note names the kernel)
  thread scaling    per kernel, GFLOP/s at each thread count over the fewest threads' GFLOP/s times
                    the ratio of the counts (1: linear); thread_scaling.csv, and printed
  failing results   verdict "fail" (validation; tilemm-bench stops such a benchmark with "validation
                    failed: ...") or "error" (a benchmark stopped for another reason): kept in
                    summary.csv, never plotted or counted as performance
"""
import argparse
import importlib.util
import math
import sys
from pathlib import Path

MISSING = [name for name in ("numpy", "pandas", "matplotlib") if importlib.util.find_spec(name) is None]
if MISSING:
    sys.exit("plot.py: no module named %s: this script needs numpy, pandas and matplotlib "
             "(Debian: apt install python3-pandas python3-matplotlib)" % ", ".join(MISSING))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from plotting.derive import COLUMNS, prepare, vendor_labels, warn_mixed_platforms  # noqa: E402
from plotting.figures import kernel_order, platform_list, plot_against_size  # noqa: E402
from plotting.portability import plot_portability, portability, print_portability  # noqa: E402
from plotting.read import BYTES_PER_VALUE, PRECISION_ALIASES, VENDOR, load  # noqa: E402
from plotting.roofline import plot_roofline  # noqa: E402
from plotting.scaling import plot_scaling  # noqa: E402
from plotting.studies import plot_shapes, plot_thread_scaling  # noqa: E402

OUTPUTS = ["summary.csv", "gflops_vs_size.png", "vendor_fraction.png", "shapes_*.png",
           "thread_scaling.png", "thread_scaling.csv", "roofline.png", "portability.csv",
           "portability.png", "scaling.png", "scaling.csv"]


# ------------------------------------------------------------------------------------------ main

def parse_figures(items, what, fail):
    """--peak 'DEVICE:PRECISION=GFLOPS' and --bandwidth 'DEVICE=GB/s' into lookup tables; `fail`
    reports a bad one (argparse's error: a usage message and exit status 2)."""
    table = {}
    for item in items:
        name, _, value = item.rpartition("=")
        try:
            figure = float(value)
        except ValueError:
            fail("--%s %r: expected a number after '='" % (what, item))
        if not math.isfinite(figure) or figure <= 0:
            fail("--%s %r: expected a positive number after '='" % (what, item))
        if what == "peak":
            device, _, precision = name.rpartition(":")
            precision = PRECISION_ALIASES.get(precision.lower(), precision.lower())
            if not device or precision not in BYTES_PER_VALUE:
                fail("--peak %r: expected DEVICE:float=GFLOPS or DEVICE:double=GFLOPS" % item)
            table[(precision, device.strip().lower())] = (figure, "given")
        else:
            if not name:
                fail("--bandwidth %r: expected DEVICE=GB/s" % item)
            table[(name.strip().lower(),)] = (figure, "given")
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", metavar="RESULT.json",
                        help="tilemm --json files and tilemm-bench Google Benchmark JSON files")
    parser.add_argument("--out", default="plots",
                        help="output folder (default: plots, in the current folder)")
    parser.add_argument("--peak", action="append", default=[], metavar="DEVICE:PRECISION=GFLOPS",
                        help="compute roof of a device or platform (as in summary.csv), e.g. "
                             "'NVIDIA H200:double=33500'; repeatable; overrides the built-in table")
    parser.add_argument("--bandwidth", action="append", default=[], metavar="DEVICE=GB/s",
                        help="memory bandwidth roof of a device or platform; repeatable")
    args = parser.parse_args(argv)
    # Checked before anything is read or written: a typo must not leave a half-made plot folder.
    peaks = parse_figures(args.peak, "peak", parser.error)
    bandwidths = parse_figures(args.bandwidth, "bandwidth", parser.error)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error("--out %s: exists and is not a folder" % out)

    rows, counts, skipped = load(args.files)
    if not rows:
        sys.exit("plot.py: no results in %d files" % len(args.files))
    df = prepare(rows)
    warn_mixed_platforms(df)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        parser.error("--out %s: cannot make the folder: %s" % (out, error.strerror or error))
    for pattern in OUTPUTS:  # a plot this run cannot make must not survive from an older run
        for stale in out.glob(pattern):
            stale.unlink()
    print("read %d results from %d tilemm CLI and %d Google Benchmark files; platforms: %s"
          % (len(df), counts["tilemm-cli"], counts["gbench"], "; ".join(sorted(df.platform.unique()))))
    dropped = df[~df.valid]
    if len(dropped):
        print("dropped from the plots: %d results (%s): %s" % (
            len(dropped), ", ".join("%d %s" % (c, v) for v, c in dropped.verdict.value_counts().items()),
            "; ".join("%s %s %s %dx%dx%d" % (r.platform, r.kernel, r.precision, r.m, r.n, r.k)
                      for r in dropped.head(6).itertuples()) + (" ..." if len(dropped) > 6 else "")))
    else:
        print("dropped from the plots: 0 results")

    order = {k: i for i, k in enumerate(kernel_order(set(df.kernel)))}
    summary = df.assign(_order=df.kernel.map(order)).sort_values(
        ["platform", "precision", "m", "n", "k", "layout", "trans", "_order", "source"])
    summary["bytes"] = summary.bytes.round().astype("Int64")  # exact, not 6 significant digits
    summary[COLUMNS].to_csv(out / "summary.csv", index=False, float_format="%.6g")
    print("wrote %s" % (out / "summary.csv"))

    plot_scaling(df, out / "scaling.png")
    df = df[df.ranks.isna()]  # a distributed result is not the GFLOP/s of its platform
    platforms = platform_list(df.platform.unique())
    vendors = vendor_labels(df)
    plot_against_size(df, "gflops", out / "gflops_vs_size.png", "GFLOP/s",
                      "GFLOP/s of square GEMM: " + platforms, log_y=True, vendors=vendors)
    plot_against_size(df[df.kernel != VENDOR], "best_fraction", out / "vendor_fraction.png",
                      "fraction of %s GFLOP/s" % VENDOR,
                      "Fraction of the vendor library reached (%s = 1, dashed): %s"
                      % (VENDOR, platforms), log_y=False, vendors=vendors, reference=1.0)
    plot_shapes(df, out)
    plot_thread_scaling(df, out / "thread_scaling.png", vendors)
    plot_roofline(df, out / "roofline.png", peaks, bandwidths, vendors)

    figures, inputs = portability(df)
    if not inputs.empty:
        inputs.to_csv(out / "portability.csv", index=False, float_format="%.6g")
        print("wrote %s" % (out / "portability.csv"))
        plot_portability(figures, inputs, out / "portability.png")
        print_portability(figures, inputs)
    else:
        print("portability: no precision has %s results on two or more platforms: portability.csv "
              "and portability.png not written" % VENDOR)
    if skipped:  # the study is made from the rest; the exit status says that it lacks them
        print("plot.py: %d of %d files could not be read and are not in this study: %s"
              % (len(skipped), len(set(args.files)), ", ".join(map(str, skipped))), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
