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

Exit status: 0; 1 when no file held results, or when some files could not be read (the study is
then made from the others, and the files left out are named); 2 for a bad option.

Outputs, in --out:
  summary.csv          one row per result, with the fraction of the vendor library at the same problem
                       (and on a GPU its SM clock, board power and time at the power cap, where the
                       run recorded them)
  gflops_vs_size.png   GFLOP/s against n for square products, one panel per platform and precision
  vendor_fraction.png  kernel GFLOP/s / kokkos-kernels GFLOP/s against n, same panels
  roofline.png         GFLOP/s against arithmetic intensity under the compute and bandwidth roofs
                       (platforms with a known peak only)
  portability.csv/.png the performance-portability figure and its inputs

Definitions:
  platform          device + backend (+ thread count on host backends, since CPU model names from
                    virtual machines are often generic)
  vendor library    the kokkos-kernels kernel (KokkosBlas::gemm: cuBLAS on CUDA, the linked BLAS on
                    CPU backends), matched on platform, precision, layout, ops, m, n, k and whether
                    beta is 0. summary.csv's vendor_fraction: against the same file's result when
                    it has one, else the fastest one recorded; best_fraction, which the plots and
                    the portability figure use: against the fastest one recorded on the platform
  intensity         2mnk / minimal bytes: A and B read once, C written once, C read too if beta != 0
  portability       Pennycook's metric: per kernel and precision, the harmonic mean over platforms of
                    the efficiency (kernel / vendor GFLOP/s); the efficiency on a platform is taken at
                    the largest square n where both have a valid result (the kernel's best tile,
                    layout or op there, over the platform's best vendor result for it); 0 when the
                    kernel has no such result on some platform
  failing results   verdict "fail" (validation; tilemm-bench stops such a benchmark with "validation
                    failed: ...") or "error" (a benchmark stopped for another reason): kept in
                    summary.csv, never plotted or counted as performance
"""
import argparse
import hashlib
import json
import math
import re
import sys
import textwrap
from pathlib import Path

try:
    import numpy as np
    import pandas as pd
    import matplotlib

    matplotlib.use("Agg")  # files only: batch nodes have no display
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
except ImportError as error:
    sys.exit("plot.py: %s: this script needs numpy, pandas and matplotlib "
             "(Debian: apt install python3-pandas python3-matplotlib)" % error)

VENDOR = "kokkos-kernels"
GPU_BACKENDS = {"cuda", "hip", "sycl", "openmptarget"}
BYTES_PER_VALUE = {"float": 4, "double": 8}
PRECISION_ALIASES = {"fp32": "float", "single": "float", "fp64": "double"}

# Peaks of known devices, keyed by the device name the results report. Each figure says where it
# comes from. CPU peaks depend on the exact model, clock and core count: give them with --peak.
KNOWN_DEVICES = {
    "NVIDIA H200": {
        "peak": {"float": (66900.0, "vendor datasheet"),
                 "double": (33500.0, "vendor datasheet, without tensor cores")},
        "bandwidth": (4264.0, "copy, device to device, measured 2026-11-24"),
    },
}

# One colour and marker per kernel in every plot, so that a kernel is recognised at a glance.
KERNEL_STYLE = {
    "naive": ("#8c8c8c", "v"),
    "tiled": ("#1f77b4", "s"),
    "register-tiled": ("#d62728", "o"),
    VENDOR: ("#000000", "D"),
}
SPARE_STYLES = [("#2ca02c", "^"), ("#9467bd", "P"), ("#ff7f0e", "X"), ("#17becf", "<"),
                ("#e377c2", ">"), ("#bcbd22", "h")]

OUTPUTS = ["summary.csv", "gflops_vs_size.png", "vendor_fraction.png", "roofline.png",
           "portability.csv", "portability.png"]
COLUMNS = ["platform", "device", "backend", "concurrency", "kernel", "precision", "layout", "trans",
           "m", "n", "k", "alpha", "beta", "beta_nonzero", "tile", "gflops", "time_s", "error", "tolerance", "verdict",
           "vendor_gflops", "vendor_fraction", "best_vendor_gflops", "best_fraction", "bytes",
           "intensity", "problem", "note", "format", "source", "hostname", "device_id", "git_hash", "build", "vendor_library", "sm_clock_mhz", "power_w",
           "power_capped", "date"]


# ---------------------------------------------------------------------------------------- reading

def platform_name(device, backend, concurrency):
    """The platform label of plots and tables. Host backends get their thread count because the
    same generic CPU name ("Intel(R) Xeon(R) Processor") can stand for very different machines."""
    if backend in GPU_BACKENDS or concurrency in (None, ""):
        return "%s (%s)" % (device, backend)
    threads = int(float(concurrency))
    return "%s (%s, %d thread%s)" % (device, backend, threads, "" if threads == 1 else "s")


def build_of(context):
    """What tells two builds apart in a result file's context: the commit, compiler and Kokkos."""
    def text(value):
        if isinstance(value, str) and value.startswith("["):  # tilemm-bench keeps lists as JSON text
            try:
                value = json.loads(value)
            except ValueError:
                pass
        return "+".join(map(str, value)) if isinstance(value, list) else str(value or "?")
    return ", ".join(text(context.get(key)) for key in
                     ("git_hash", "compiler", "kokkos_version", "kokkos_arch", "kokkos_backends"))


def vendor_library_of(context):
    """The library kokkos-kernels called, as the run recorded it (runs before 2026-11-25 did not):
    cuBLAS and its version, OpenBLAS's description of itself or BLIS and its version; for another
    BLAS its file, since that is all a run knows of it. A BLAS that keeps a thread count of its
    own (BLIS, a non-OpenMP OpenBLAS) says on how many threads it ran, since that count, not the
    backend's, is the baseline's."""
    blas = context.get("blas") or ""
    library = context.get("blas_library")
    if blas == "unidentified BLAS" and library:
        # A generic name (libblas.so.3) says nothing without its folder (blis-openmp, blas).
        parts = library.split("/")
        named = "/".join(parts[-2:]) if parts[-1].startswith("libblas.") else parts[-1]
        blas = "%s (%s)" % (blas, named)
    threads = context.get("blas_threads")
    if threads not in (None, ""):
        blas += " on %s thread%s" % (threads, "" if str(threads) == "1" else "s")
    return blas


def minimal_bytes(precision, m, n, k, beta_nonzero):
    """A and B read once, C written once, and read once more when beta != 0."""
    size = BYTES_PER_VALUE.get(precision, float("nan"))
    return size * (m * k + k * n + m * n * (2 if beta_nonzero else 1))


def verdict_of(error, tolerance):
    if error is None or tolerance is None:
        return "unknown"
    if not math.isfinite(error):  # NaN or Inf in C never passes, as in the CLI
        return "fail"
    return "pass" if error <= tolerance else "fail"


def read_cli(doc, source):
    """Rows of a tilemm CLI --json file."""
    context = doc.get("context", {})
    rows = []
    for r in doc.get("results", []):
        beta = r.get("beta") or 0.0
        rows.append({
            "device": r.get("device") or context.get("device"),
            "backend": r.get("backend") or context.get("backend"),
            "concurrency": context.get("concurrency"),
            "kernel": r["kernel"], "precision": r["precision"], "layout": r["layout"],
            "trans": r["trans_a"] + r["trans_b"], "m": r["m"], "n": r["n"], "k": r["k"],
            "alpha": r.get("alpha"), "beta": beta, "beta_nonzero": beta != 0, "tile": r.get("tile"),
            "gflops": r.get("gflops"), "time_s": r.get("time_median_s"), "error": r.get("error"),
            "tolerance": r.get("tolerance"), "verdict": r.get("verdict"), "problem": r.get("name"),
            "note": "", "format": "tilemm-cli", "source": source,
            "hostname": r.get("hostname") or context.get("hostname"),
            "device_id": context.get("cuda_device_id"),
            "git_hash": context.get("git_hash"), "build": build_of(context),
            "vendor_library": vendor_library_of(context),
            # The GPU's median SM clock and board power over the timed runs, and the fraction of
            # them at its power cap (runs before 2026-11-25 did not record them).
            "sm_clock_mhz": r.get("gpu_sm_clock_mhz"), "power_w": r.get("gpu_power_w"),
            "power_capped": r.get("gpu_power_capped"),
            "date": context.get("utc_time") or r.get("utc_time"),
        })
    return rows


TIME_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
AGGREGATES = ("_mean", "_median", "_stddev", "_cv")


def gbench_run_name(bench):
    """The benchmark's name without an aggregate suffix (older Google Benchmarks lack run_name)."""
    name = bench.get("run_name") or bench["name"]
    for suffix in AGGREGATES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def parse_gbench_name(name):
    """gemm/KERNEL/BACKEND/PRECISION/LAYOUT/TRANS/m:M/n:N/k:K[/manual_time][/repeats:R]..."""
    parts = name.split("/")
    if len(parts) < 9 or parts[0] != "gemm":
        return None
    fields = dict(zip(("kernel", "backend", "precision", "layout", "trans"), parts[1:6]))
    try:
        for part, key in zip(parts[6:9], "mnk"):
            label, _, value = part.partition(":")
            if label != key:
                return None
            fields[key] = int(value)
    except ValueError:
        return None
    return fields


def number(value):
    """A counter as a float; None when absent or not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def pick_gbench_run(runs):
    """The entry that stands for one benchmark: a failed run if any (Google Benchmark leaves failed
    repetitions out of its aggregates, which would hide them), else the median aggregate when
    repetitions made one, else the iteration runs, folded into their median (error: the largest)."""
    iterations = [b for b in runs if b.get("run_type", "iteration") == "iteration"]
    failed = [b for b in iterations if b.get("error_occurred")]
    if failed:
        return dict(failed[0]), ""
    medians = [b for b in runs if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
    if medians:
        return dict(medians[0]), "median of repetitions"
    good = iterations
    if not good:
        return None, ""
    if len(good) == 1:  # Google Benchmark's time of a run is the mean of its iterations
        return dict(good[0]), "mean of %s iterations" % good[0].get("iterations", "its")
    pick = dict(good[0])
    scale = TIME_UNIT.get(pick.get("time_unit", "ns"), 1e-9)
    pick["real_time"] = float(np.median([b["real_time"] * TIME_UNIT.get(b.get("time_unit", "ns"), 1e-9)
                                         for b in good])) / scale
    for key in ("FLOP/s", "bytes", "intensity", "tolerance"):
        values = [number(b.get(key)) for b in good if number(b.get(key)) is not None]
        if values:
            pick[key] = float(np.median(values))
    errors = [number(b.get("error")) for b in good if number(b.get("error")) is not None]
    if errors:
        pick["error"] = max(errors)
    return pick, "median of %d runs" % len(good)


# tilemm-bench stops a benchmark whose result fails validation with this message (no counters then).
VALIDATION_FAILED = re.compile(r"validation failed: error (\S+) > tolerance (\S+)")


def read_gbench(doc, source):
    """Rows of a Google Benchmark JSON file written by tilemm-bench."""
    context = doc.get("context", {})
    groups = {}
    for bench in doc.get("benchmarks", []):
        # One registered benchmark = one family instance: a tile sweep or problems that differ only
        # in alpha or beta share a name, never a family index. Aggregates keep their runs' indices.
        key = (gbench_run_name(bench), bench.get("family_index"), bench.get("per_family_instance_index"))
        groups.setdefault(key, []).append(bench)
    rows, skipped = [], []
    for (run_name, _, _), runs in groups.items():
        fields = parse_gbench_name(run_name)
        if fields is None:
            skipped.append(run_name)
            continue
        bench, note = pick_gbench_run(runs)
        if bench is None:
            continue
        m, n, k, precision = fields["m"], fields["n"], fields["k"], fields["precision"]
        plain = minimal_bytes(precision, m, n, k, False)
        traffic = number(bench.get("bytes"))
        # The name carries no beta: the byte counter tells whether C was read (beta != 0).
        beta_nonzero = traffic is not None and traffic > plain * 1.0001
        row = dict(fields, concurrency=context.get("concurrency"), alpha=None, beta=None,
                   beta_nonzero=beta_nonzero, tile=bench.get("label") or None, format="gbench",
                   source=source, device=context.get("device"),
                   backend=fields["backend"] or context.get("backend"),
                   hostname=context.get("hostname") or context.get("host_name"),
                   device_id=context.get("cuda_device_id"), git_hash=context.get("git_hash"), build=build_of(context),
                   vendor_library=vendor_library_of(context),
                   sm_clock_mhz=number(bench.get("gpu_sm_clock_mhz")),
                   power_w=number(bench.get("gpu_power_w")),
                   power_capped=number(bench.get("gpu_power_capped")),
                   date=context.get("utc_time") or context.get("date"),
                   problem=run_name, bytes=traffic, note=note)
        if bench.get("error_occurred"):
            message = bench.get("error_message", "benchmark stopped with an error")
            failed = VALIDATION_FAILED.search(message)
            row.update(gflops=None, time_s=None, error=number(failed.group(1)) if failed else None,
                       tolerance=number(failed.group(2)) if failed else None,
                       verdict="fail" if failed else "error", note=message)
        else:
            seconds = bench["real_time"] * TIME_UNIT.get(bench.get("time_unit", "ns"), 1e-9)
            rate = number(bench.get("FLOP/s"))
            if rate is None and seconds > 0:
                rate = 2.0 * m * n * k / seconds
            row.update(gflops=rate / 1e9 if rate is not None else None, time_s=seconds,
                       error=number(bench.get("error")), tolerance=number(bench.get("tolerance")))
            row["verdict"] = verdict_of(row["error"], row["tolerance"])
        rows.append(row)
    if skipped:
        print("%s: %d benchmarks not named gemm/KERNEL/BACKEND/PRECISION/LAYOUT/OPS/m:M/n:N/k:K, "
              "ignored (e.g. %s)" % (source, len(skipped), skipped[0]), file=sys.stderr)
    return rows


def checked(rows):
    """The rows, once their extents and thread counts are numbers (else ValueError, naming one)."""
    for row in rows:
        for key in ("m", "n", "k"):
            if isinstance(row[key], bool) or not isinstance(row[key], int) or row[key] < 1:
                raise ValueError("a result whose %s is %r, not a whole number >= 1" % (key, row[key]))
        threads = row.get("concurrency")
        if threads not in (None, "") and number(threads) is None:
            raise ValueError("a context whose concurrency is %r, not a number" % (threads,))
    return rows


def read_file(path, data):
    """(rows, format) of one result file, `data` its bytes; raises ValueError with the reason it
    cannot be read."""
    if str(path).lower().endswith(".csv"):
        raise ValueError("a CSV file: give the --json file of the same run (the CSV has the results "
                         "but not the run's context: build, BLAS, threads)")
    try:
        doc = json.loads(data)  # Google Benchmark may write NaN: Python's json reads it
    except ValueError as error:
        raise ValueError("not JSON, or cut short: %s" % error)
    source = str(path)
    try:
        if isinstance(doc, dict) and str(doc.get("schema", "")).startswith("tilemm.results/"):
            if doc.get("status") != "complete":
                print("%s: status '%s': the file holds the results finished so far"
                      % (path, doc.get("status")), file=sys.stderr)
            return checked(read_cli(doc, source)), "tilemm-cli"
        if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list):
            rows = checked(read_gbench(doc, source))
            if not rows:
                raise ValueError("Google Benchmark JSON without tilemm-bench's gemm/... benchmarks")
            return rows, "gbench"
    except KeyError as error:
        raise ValueError("a result without the key %s (schema %r)" % (error, doc.get("schema")))
    except (TypeError, AttributeError) as error:
        raise ValueError("a result of unexpected form (%s)" % error)
    raise ValueError("neither a tilemm result file nor Google Benchmark JSON")


def load(paths):
    """All rows of all files, each file's format told by its content; a file named twice (or two
    copies of one file) is read once. Returns the rows, the count of files of each format and the
    files that could not be read (each named on stderr with the reason)."""
    rows, counts, skipped, seen = [], {"tilemm-cli": 0, "gbench": 0}, [], {}
    for path in paths:
        try:
            data = Path(path).read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen:
                print("%s: the same content as %s: read once" % (path, seen[digest]), file=sys.stderr)
                continue
            file_rows, kind = read_file(path, data)
        except OSError as error:
            reason = error.strerror or str(error)
        except ValueError as error:
            reason = str(error)
        else:
            seen[digest] = path
            rows += file_rows
            counts[kind] += 1
            continue
        print("%s: skipped: %s" % (path, reason), file=sys.stderr)
        skipped.append(path)
    return rows, counts, skipped


# -------------------------------------------------------------------------------------- deriving

def kernel_order(kernels):
    known = [k for k in KERNEL_STYLE if k in kernels]
    return known + sorted(k for k in kernels if k not in KERNEL_STYLE)


def kernel_style(kernel, all_kernels):
    if kernel in KERNEL_STYLE:
        return KERNEL_STYLE[kernel]
    others = sorted(k for k in all_kernels if k not in KERNEL_STYLE)
    return SPARE_STYLES[others.index(kernel) % len(SPARE_STYLES)]


PROBLEM_KEY = ["platform", "precision", "layout", "trans", "m", "n", "k", "beta_nonzero"]


def add_vendor_fraction(df):
    """vendor_gflops and vendor_fraction of every valid row: the kokkos-kernels result of the same
    problem, from the same file when there is one (same session, same conditions), else the fastest
    one. A vendor row is its own reference (fraction 1).

    best_fraction: the row's GFLOP/s over the fastest kokkos-kernels result of the problem on the
    platform, from any file. The plots and the portability figure take the best row of a problem,
    and take it by this: by vendor_fraction, a file whose baseline was slow (another BLAS, a build
    without the vendor library) would win with a ratio its kernel never reached against the best."""
    vendor = df[df.valid & (df.kernel == VENDOR)]
    same_file = vendor.groupby(PROBLEM_KEY + ["source"]).gflops.max().rename("v_same")
    fastest = vendor.groupby(PROBLEM_KEY).gflops.max().rename("v_any")
    df = df.join(same_file, on=PROBLEM_KEY + ["source"]).join(fastest, on=PROBLEM_KEY)
    df["vendor_gflops"] = df.v_same.fillna(df.v_any)
    df.loc[df.kernel == VENDOR, "vendor_gflops"] = df.gflops
    df.loc[~df.valid, "vendor_gflops"] = np.nan
    df["vendor_fraction"] = df.gflops / df.vendor_gflops
    df["best_vendor_gflops"] = df.v_any.where(df.valid)
    df["best_fraction"] = df.gflops / df.best_vendor_gflops
    return df.drop(columns=["v_same", "v_any"])


def prepare(rows):
    df = pd.DataFrame(rows).reindex(columns=COLUMNS)
    for column in ("m", "n", "k"):
        df[column] = df[column].astype("int64")
    for column in ("gflops", "time_s", "error", "tolerance", "alpha", "beta", "bytes"):
        df[column] = pd.to_numeric(df[column], errors="coerce")
    df["precision"] = df.precision.str.lower().replace(PRECISION_ALIASES)
    df["platform"] = [platform_name(d, b, c) for d, b, c in zip(df.device, df.backend, df.concurrency)]
    computed = [minimal_bytes(p, m, n, k, bz)
                for p, m, n, k, bz in zip(df.precision, df.m, df.n, df.k, df.beta_nonzero)]
    df["bytes"] = df.bytes.fillna(pd.Series(computed, index=df.index))
    df["intensity"] = 2.0 * df.m * df.n * df.k / df.bytes
    df["valid"] = df.verdict.isin(["pass", "unknown"]) & (df.gflops > 0)
    df["square"] = (df.m == df.n) & (df.n == df.k)
    return add_vendor_fraction(df)


def warn_mixed_platforms(df):
    """A platform is a device name, a backend and a thread count: results from several machines,
    GPUs, builds or vendor libraries that share them (a generic CPU name, nodes of one cluster, two
    compilers, a BLAS swapped in with LD_PRELOAD) are pooled, and the plots take the best result of
    each problem among them, against the best vendor result. Say so: they may not be alike."""
    def plural(count, word, words):
        return "%d %s" % (count, word if count == 1 else words)

    for platform, here in df.groupby("platform"):
        hosts = here[["hostname", "device_id"]].fillna("").drop_duplicates().shape[0]
        builds = here.build.dropna().nunique()
        recorded = here.vendor_library.fillna("")
        libraries = set(recorded) - {""}
        unrecorded = bool((recorded == "").any())
        if hosts > 1 or builds > 1 or len(libraries) > 1:
            print("note: platform '%s' pools %s, %s and %s (%s): its plots and portability take "
                  "each problem's best result over the best %s result among them; summary.csv has "
                  "the host, build and vendor library of every row%s"
                  % (platform, plural(hosts, "host or GPU", "hosts or GPUs"),
                     plural(builds, "build", "builds"),
                     plural(len(libraries), "vendor library", "vendor libraries")
                     + (" (and files that did not record theirs)" if unrecorded and libraries else ""),
                     plural(here.source.nunique(), "file", "files"), VENDOR,
                     (", and its vendor_fraction is against the same file's %s" % VENDOR)
                     if len(libraries) > 1 else ""), file=sys.stderr)


def portability(df):
    """Pennycook's performance portability per kernel and precision, and its inputs."""
    inputs, figures = [], []
    for precision in sorted(df.precision.unique()):
        here = df[df.precision == precision]
        platforms = sorted(here[here.valid & (here.kernel == VENDOR)].platform.unique())
        without = sorted(set(here.platform) - set(platforms))
        if without:
            print("portability (%s): no valid %s result on %s: not in the platform set"
                  % (precision, VENDOR, ", ".join(without)))
        if not platforms:
            continue
        for kernel in kernel_order(set(here.kernel)):
            efficiencies = []
            for platform in platforms:
                candidates = here[(here.kernel == kernel) & (here.platform == platform) & here.square
                                  & here.best_fraction.notna()]
                row = {"kernel": kernel, "precision": precision, "platform": platform}
                if candidates.empty:
                    ran = here[(here.kernel == kernel) & (here.platform == platform)]
                    note = ("not run" if ran.empty else "no valid result" if not ran.valid.any()
                            else "no square size shared with %s" % VENDOR)
                    row.update(n=np.nan, gflops=np.nan, vendor_gflops=np.nan, efficiency=0.0, note=note)
                else:
                    largest = candidates[candidates.n == candidates.n.max()]
                    best = largest.loc[largest.best_fraction.idxmax()]
                    row.update(n=int(best.n), gflops=best.gflops, vendor_gflops=best.best_vendor_gflops,
                               efficiency=best.best_fraction, tile=best.tile,
                               layout=best.layout, trans=best.trans, source=best.source, note="")
                inputs.append(row)
                efficiencies.append(row["efficiency"])
            pp = 0.0 if min(efficiencies) <= 0 else len(efficiencies) / sum(1 / e for e in efficiencies)
            figures.append({"kernel": kernel, "precision": precision, "portability": pp,
                            "platforms": len(platforms)})
    inputs = pd.DataFrame(inputs)
    figures = pd.DataFrame(figures)
    if not inputs.empty:
        inputs = inputs.merge(figures[["kernel", "precision", "portability"]], on=["kernel", "precision"])
    return figures, inputs


# -------------------------------------------------------------------------------------- plotting

def log2_axis(ax, sizes):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(sizes))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: "%d" % x))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if len(sizes) > 8:
        ax.tick_params(axis="x", labelrotation=45)


def plain_log_axis(axis, low, high):
    """Log scale labelled in plain digits (GFLOP/s are read, not decoded), at 1, 2, 5 x 10^k, or
    denser when the axis spans less than about a decade and a half."""
    subs = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0) if high < 30 * low else (1.0, 2.0, 5.0)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: "{:,.0f}".format(v) if v >= 1 else "%g" % v))
    axis.set_minor_formatter(NullFormatter())


def kernel_handles(kernels, all_kernels):
    handles = []
    for kernel in kernels:
        colour, marker = kernel_style(kernel, all_kernels)
        handles.append(Line2D([], [], color=colour, marker=marker, label=kernel,
                              linestyle="--" if kernel == VENDOR else "-"))
    return handles


def variant_label(layout, trans, beta_nonzero):
    return "%s %s%s" % (layout, trans, ", beta!=0" if beta_nonzero else "")


HEADER_INCHES = 0.8  # room above the panels for the title and the shared legend


def panel_grid(platforms, precisions, width=5.4, height=4.0):
    fig, axes = plt.subplots(len(platforms), len(precisions), squeeze=False,
                             figsize=(width * len(precisions), height * len(platforms) + HEADER_INCHES))
    return fig, axes


def finish(fig, path, title, handles, ncol=6):
    """Title (wrapped to the figure's width), one legend for all panels under it, then save."""
    width, height = fig.get_size_inches()
    ncol = max(1, min(ncol, int(width / 1.45)))  # about 1.4 inches an entry, or it is cut off
    lines = textwrap.wrap(title, width=int(width * 9.5))
    title_inches = 0.12 + 0.24 * len(lines)
    legend_rows = math.ceil(len(handles) / ncol)
    # Panels first: tight_layout would otherwise leave room for the title and legend twice.
    fig.tight_layout(rect=(0, 0, 1, 1 - (title_inches + 0.1 + 0.27 * legend_rows) / height))
    fig.suptitle("\n".join(lines), fontsize=12, y=1 - 0.08 / height, va="top")
    fig.legend(handles=handles, loc="upper center", ncol=min(len(handles), ncol), frameon=False,
               bbox_to_anchor=(0.5, 1 - title_inches / height), fontsize=10)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote %s" % path)


def platform_list(platforms):
    return ", ".join(sorted(platforms))


def square_lines(data, value):
    """Per kernel and variant (layout, ops, beta), the best `value` at each square n: a tile sweep
    or a repeated run shows as its best point."""
    return data.groupby(["kernel", "layout", "trans", "beta_nonzero", "n"])[value].max().reset_index()


def plot_against_size(df, value, path, ylabel, title, log_y, reference=None):
    data = df[df.valid & df.square & df[value].notna()]
    if data.empty:
        failed = (df.square & ~df.valid).sum()
        kernels = "" if (df.kernel == VENDOR).sum() == 0 or value != "best_fraction" else \
            " of kernels other than %s" % VENDOR
        print("no %ssquare results%s: %s not written"
              % ("valid " if failed else "", kernels, path) + (" (%d failed)" % failed if failed else ""))
        return
    platforms = sorted(data.platform.unique())
    precisions = sorted(data.precision.unique())
    all_kernels = set(df.kernel)
    fig, axes = panel_grid(platforms, precisions)
    for i, platform in enumerate(platforms):
        for j, precision in enumerate(precisions):
            ax = axes[i][j]
            here = data[(data.platform == platform) & (data.precision == precision)]
            ax.set_title("%s, %s" % (platform, precision), fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            if here.empty:
                ax.text(0.5, 0.5, "no results", ha="center", va="center", transform=ax.transAxes)
                continue
            lines = square_lines(here, value)
            variants = lines[["layout", "trans", "beta_nonzero"]].drop_duplicates()
            styles = ["-", ":", "-.", (0, (5, 1))]
            for kernel in kernel_order(set(lines.kernel)):
                colour, marker = kernel_style(kernel, all_kernels)
                for v, variant in enumerate(variants.itertuples(index=False)):
                    line = lines[(lines.kernel == kernel) & (lines.layout == variant.layout)
                                 & (lines.trans == variant.trans)
                                 & (lines.beta_nonzero == variant.beta_nonzero)].sort_values("n")
                    if line.empty:
                        continue
                    style = "--" if kernel == VENDOR and len(variants) == 1 else styles[v % len(styles)]
                    label = kernel if len(variants) == 1 else "%s (%s)" % (kernel, variant_label(*variant))
                    ax.plot(line.n, line[value], color=colour, marker=marker, linestyle=style,
                            label=label, markersize=6)
            if reference is not None:
                ax.axhline(reference, color=KERNEL_STYLE[VENDOR][0], linestyle="--", linewidth=1)
            log2_axis(ax, here.n.unique())
            if log_y:
                ax.set_yscale("log")
                plain_log_axis(ax.yaxis, *ax.get_ylim())
            else:
                ax.set_ylim(0, max(1.05, 1.1 * here[value].max()))
            if len(variants) > 1:
                ax.legend(fontsize=7)
            ax.set_xlabel("n (m = n = k)")
            ax.set_ylabel(ylabel)
    finish(fig, path, title, kernel_handles(kernel_order(set(data.kernel)), all_kernels))


def roof_of(device, platform, precision, peaks, bandwidths):
    """(peak GFLOP/s, its source), (GB/s, its source) for a platform; None where unknown.
    Command-line figures name a platform or a device; then the table of known devices."""
    def lookup(table, key):
        for name in (platform, device):
            if key + (name.lower(),) in table:
                return table[key + (name.lower(),)]
        return None

    peak = lookup(peaks, (precision,))
    bandwidth = lookup(bandwidths, ())
    known = {name.lower(): entry for name, entry in KNOWN_DEVICES.items()}.get(str(device).lower())
    if known:
        peak = peak or known["peak"].get(precision)
        bandwidth = bandwidth or known["bandwidth"]
    return peak, bandwidth


def plot_roofline(df, path, peaks, bandwidths):
    data = df[df.valid]
    if data.empty:
        print("roofline: no valid results: %s not written" % path)
        return
    panels, skipped = [], []
    for (platform, device, precision), _ in data.groupby(["platform", "device", "precision"]):
        peak, bandwidth = roof_of(device, platform, precision, peaks, bandwidths)
        if peak is None:
            skipped.append("%s %s" % (platform, precision))
        else:
            panels.append((platform, precision, peak, bandwidth))
    if skipped:
        print("roofline: no peak known for %s: skipped (give --peak 'DEVICE:PRECISION=GFLOPS' "
              "and --bandwidth 'DEVICE=GB/s')" % "; ".join(skipped))
    if not panels:
        print("roofline: no platform with a known peak: %s not written" % path)
        return
    platforms = sorted({p for p, *_ in panels})
    precisions = sorted({q for _, q, *_ in panels})
    all_kernels = set(df.kernel)
    fig, axes = panel_grid(platforms, precisions, width=5.6, height=4.4)
    for ax in axes.flat:
        ax.set_visible(False)
    above = []
    for platform, precision, (peak, peak_source), bandwidth in panels:
        ax = axes[platforms.index(platform)][precisions.index(precision)]
        ax.set_visible(True)
        here = data[(data.platform == platform) & (data.precision == precision)]
        for kernel in kernel_order(set(here.kernel)):
            colour, marker = kernel_style(kernel, all_kernels)
            points = here[here.kernel == kernel]
            for square, face in ((True, colour), (False, "none")):
                chosen = points[points.square == square]
                ax.scatter(chosen.intensity, chosen.gflops, marker=marker, s=36, zorder=3,
                           facecolors=face, edgecolors=colour, linewidths=1.2)
        over = here[here.gflops > peak]
        above += ["%s %s %s %dx%dx%d: %.0f GFLOP/s" % (r.platform, r.kernel, r.precision, r.m, r.n, r.k,
                                                        r.gflops) for r in over.itertuples()]
        ridge = peak / bandwidth[0] if bandwidth else here.intensity.min()
        x = np.geomspace(min(here.intensity.min(), ridge) / 4, here.intensity.max() * 3, 200)
        roof = np.minimum(peak, bandwidth[0] * x) if bandwidth else np.full_like(x, peak)
        ax.plot(x, roof, color="#444444", linewidth=1.5, zorder=2)
        # The roofs' figures and sources in a box where GEMM puts no points (low rate, high intensity).
        legend = ["compute roof: %.0f GFLOP/s (%s)" % (peak, peak_source)]
        legend.append("bandwidth roof: %.0f GB/s (%s)" % bandwidth if bandwidth else "bandwidth: not known")
        if len(over):
            legend.append("%d result%s above the compute roof" % (len(over), "s" * (len(over) > 1)))
        ax.text(0.98, 0.03, "\n".join(legend), transform=ax.transAxes, ha="right", va="bottom",
                fontsize=7.5, bbox=dict(facecolor="white", edgecolor="#999999", alpha=0.9))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
        ax.set_xlim(x[0], x[-1])
        ax.set_ylim(min(here.gflops.min(), roof[0]) / 8, max(peak, here.gflops.max()) * 1.6)
        plain_log_axis(ax.yaxis, *ax.get_ylim())
        ax.grid(True, which="both", alpha=0.3)
        ax.set_title("%s, %s" % (platform, precision), fontsize=10)
        ax.set_xlabel("arithmetic intensity (FLOP/byte, minimal traffic)")
        ax.set_ylabel("GFLOP/s")
    if above:
        print("roofline: %d results above the compute roof (the roof does not cover the units they "
              "used, e.g. FP64 tensor cores): %s" % (len(above), "; ".join(above[:4])
                                                      + (" ..." if len(above) > 4 else "")))
    shapes = [Line2D([], [], marker="o", color="#444444", linestyle="", label="square"),
              Line2D([], [], marker="o", color="#444444", markerfacecolor="none", linestyle="",
                     label="other shapes")]
    handles = kernel_handles(kernel_order(set(data[data.platform.isin(platforms)].kernel)), all_kernels)
    finish(fig, path, "Roofline (minimal traffic): " + platform_list(platforms), handles + shapes)


def plot_portability(figures, inputs, path):
    shown = figures[figures.kernel != VENDOR]
    if shown.empty:
        print("portability: no kernel besides %s: %s not written" % (VENDOR, path))
        return
    precisions = sorted(shown.precision.unique())
    platforms = sorted(inputs.platform.unique())
    groups = len(shown.kernel.unique())
    fig, axes = plt.subplots(1, len(precisions), squeeze=False,
                             figsize=(max(4.5, 0.45 * groups * (len(platforms) + 1) + 1.5) * len(precisions),
                                      4.2 + HEADER_INCHES + 0.2 * len(platforms)))
    colours = plt.get_cmap("tab10")
    width = 0.8 / (len(platforms) + 1)
    for j, precision in enumerate(precisions):
        ax = axes[0][j]
        kernels = kernel_order(set(shown[shown.precision == precision].kernel))
        for p, platform in enumerate(platforms):
            effs = [inputs[(inputs.kernel == k) & (inputs.precision == precision)
                           & (inputs.platform == platform)].efficiency for k in kernels]
            values = [e.iloc[0] if len(e) else np.nan for e in effs]
            x = np.arange(len(kernels)) + p * width
            ax.bar(x, values, width, color=colours(p % 10), label=platform)
            for xi, value in zip(x, values):
                if value == 0:  # no valid result there: say so rather than leave a gap
                    ax.text(xi, 0.005, "none", rotation=90, ha="center", va="bottom", fontsize=8)
        pps = [shown[(shown.kernel == k) & (shown.precision == precision)].portability.iloc[0]
               for k in kernels]
        bars = ax.bar(np.arange(len(kernels)) + len(platforms) * width, pps, width, color="white",
                      edgecolor="black", hatch="//", label="portability (harmonic mean)")
        for bar, pp in zip(bars, pps):
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 0.01, "%.3f" % pp,
                    ha="center", va="bottom", fontsize=8)
        ax.set_xticks(np.arange(len(kernels)) + len(platforms) * width / 2)
        ax.set_xticklabels(kernels)
        ax.set_ylabel("efficiency = GFLOP/s / %s GFLOP/s" % VENDOR)
        ax.set_ylim(0, max(0.1, 1.25 * max(inputs[inputs.kernel != VENDOR].efficiency.max(), max(pps))))
        ax.set_title(precision, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    handles, _ = axes[0][0].get_legend_handles_labels()
    finish(fig, path, "Performance portability: efficiency against %s at the largest shared square n "
           "per platform, and its harmonic mean" % VENDOR, handles, ncol=1)


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


def print_portability(figures, inputs):
    if figures.empty:
        return
    table = figures.pivot(index="kernel", columns="precision", values="portability")
    table = table.reindex(kernel_order(set(table.index)))
    print("\nPerformance portability (harmonic mean over platforms of GFLOP/s / %s GFLOP/s, at the "
          "largest square n both have on each platform; 0: missing on a platform):" % VENDOR)
    print(table.to_string(float_format=lambda v: "%.3f" % v))
    print("\nInputs:")
    shown = inputs.copy()
    shown["n"] = shown.n.map(lambda v: "-" if pd.isna(v) else "%d" % v)
    print(shown[["kernel", "precision", "platform", "n", "gflops", "vendor_gflops", "efficiency", "note"]]
          .to_string(index=False, float_format=lambda v: "%.4g" % v))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", metavar="RESULT.json",
                        help="tilemm --json files and tilemm-bench Google Benchmark JSON files")
    parser.add_argument("--out", default="perf/plots", help="output folder (default: perf/plots)")
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
    for name in OUTPUTS:  # a plot this run cannot make must not survive from an older run
        (out / name).unlink(missing_ok=True)
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

    platforms = platform_list(df.platform.unique())
    plot_against_size(df, "gflops", out / "gflops_vs_size.png", "GFLOP/s",
                      "GFLOP/s of square GEMM: " + platforms, log_y=True)
    plot_against_size(df[df.kernel != VENDOR], "best_fraction", out / "vendor_fraction.png",
                      "fraction of %s GFLOP/s" % VENDOR,
                      "Fraction of the vendor library reached (%s = 1, dashed): %s"
                      % (VENDOR, platforms), log_y=False, reference=1.0)
    plot_roofline(df, out / "roofline.png", peaks, bandwidths)

    figures, inputs = portability(df)
    if not inputs.empty:
        inputs.to_csv(out / "portability.csv", index=False, float_format="%.6g")
        print("wrote %s" % (out / "portability.csv"))
        plot_portability(figures, inputs, out / "portability.png")
        print_portability(figures, inputs)
    if skipped:  # the study is made from the rest; the exit status says that it lacks them
        print("plot.py: %d of %d files could not be read and are not in this study: %s"
              % (len(skipped), len(set(args.files)), ", ".join(map(str, skipped))), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
