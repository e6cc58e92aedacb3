"""What the study derives from the rows: the table of results, each result's fraction of the
vendor library, and the notes on pooled platforms."""
import sys

import numpy as np
import pandas as pd

from .read import PRECISION_ALIASES, VENDOR, minimal_bytes, platform_name


COLUMNS = ["platform", "device", "backend", "concurrency", "kernel", "precision", "layout", "trans",
           "m", "n", "k", "alpha", "beta", "beta_nonzero", "tile", "gflops", "gflops_low",
           "gflops_high", "spread", "time_s", "time_fast_s", "time_slow_s", "error", "tolerance",
           "verdict", "vendor_gflops", "vendor_fraction", "best_vendor_gflops", "best_fraction",
           "bytes", "intensity", "study", "problem", "note", "format", "source", "hostname",
           "device_id", "git_hash", "build", "vendor_library", "sm_clock_mhz", "power_w",
           "power_capped", "date", "ranks", "grid", "comm", "distribution", "comm_exposed",
           "gflops_per_rank"]


def short_library(text):
    """A vendor library's name for a legend: name and version ("OpenBLAS 0.3.21" of OpenBLAS's
    long description of itself), with the thread count of a BLAS that keeps its own."""
    if not isinstance(text, str) or not text:
        return "BLAS not recorded"  # result files before 2026-11-25
    head, sep, threads = text.partition(" on ")
    if not head.startswith("unidentified"):
        head = " ".join(head.split()[:2])
    return head + sep + threads


def vendor_names(rows):
    """The vendor libraries behind some kokkos-kernels rows, as one label."""
    names = {short_library(text) for text in rows.vendor_library}
    return " / ".join(sorted(names, key=lambda name: (name == "BLAS not recorded", name)))


def vendor_labels(df):
    """Per platform, the vendor libraries its valid kokkos-kernels results ran on, as one label."""
    vendor = df[df.valid & (df.kernel == VENDOR)]
    return {platform: vendor_names(rows) for platform, rows in vendor.groupby("platform")}


# procs: 1 for one process, else the ranks of a distributed run, whose kokkos-kernels rows are the
# vendor results of that many ranks only.
PROBLEM_KEY = ["platform", "precision", "layout", "trans", "m", "n", "k", "beta_nonzero", "procs"]


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
    for column in ("gflops", "time_s", "time_fast_s", "time_slow_s", "error", "tolerance", "alpha",
                   "beta", "bytes", "ranks", "comm_exposed", "gflops_per_rank"):
        df[column] = pd.to_numeric(df[column], errors="coerce")
    # The spread of the timed runs as GFLOP/s: the slow end gives the low rate.
    df["gflops_low"] = df.gflops * df.time_s / df.time_slow_s
    df["gflops_high"] = df.gflops * df.time_s / df.time_fast_s
    df["precision"] = df.precision.str.lower().replace(PRECISION_ALIASES)
    df["platform"] = [platform_name(d, b, c) for d, b, c in zip(df.device, df.backend, df.concurrency)]
    computed = [minimal_bytes(p, m, n, k, bz)
                for p, m, n, k, bz in zip(df.precision, df.m, df.n, df.k, df.beta_nonzero)]
    df["bytes"] = df.bytes.fillna(pd.Series(computed, index=df.index))
    df["intensity"] = 2.0 * df.m * df.n * df.k / df.bytes
    df["valid"] = df.verdict.isin(["pass", "unknown"]) & (df.gflops > 0)
    df["square"] = (df.m == df.n) & (df.n == df.k)
    df["procs"] = df.ranks.fillna(1).astype("int64")
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
