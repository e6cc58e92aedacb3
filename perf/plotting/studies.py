"""The figures of one kind of study: GFLOP/s per problem shape for a study of other than square
products (rectangular, small and skinny), and GFLOP/s against the thread count for a study run
at several thread counts of one device (perf/slurm/threads.sbatch)."""
import re

import numpy as np
import pandas as pd

from .figures import (best_rows, draw_points, finish, fit_log_axis, kernel_handles, kernel_order,
                      kernel_style, log2_axis, panel_grid, panel_title, platform_list, vendor_legend)
from .derive import vendor_labels
from .read import GPU_BACKENDS, VENDOR

SHAPE_KEY = ["m", "n", "k", "layout", "trans", "beta_nonzero"]


def shape_label(row):
    """A problem as a tick label: its name (the CLI's; a benchmark's name is its shape), its
    extents, and what differs from the defaults (layout right, op NN, beta 0)."""
    name = "" if not isinstance(row.problem, str) or row.problem.startswith("gemm/") else row.problem + "\n"
    extras = [row.layout if row.layout != "right" else "", "op " + row.trans if row.trans != "NN" else "",
              "beta!=0" if row.beta_nonzero else ""]
    extras = ", ".join(e for e in extras if e)
    return "%s%dx%dx%d%s" % (name, row.m, row.n, row.k, "\n" + extras if extras else "")


def file_name(study):
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(study)).strip("-") or "study"


def plot_shapes(df, out):
    """One figure per study whose valid results include other than square products:
    shapes_STUDY.png, its legend naming the vendor libraries of that study's results."""
    data = df[df.valid & df.gflops.notna()]
    for study, here in data.groupby("study"):
        if here.square.all():
            continue  # gflops_vs_size.png shows it
        path = out / ("shapes_%s.png" % file_name(study))
        plot_study_shapes(here, study, path, vendor_labels(here), set(df.kernel))


def plot_study_shapes(here, study, path, vendors, all_kernels):
    """GFLOP/s of each problem of a study, smallest product first, one panel per platform and
    precision; per kernel its best result with the spread of its timed runs, on a log axis."""
    shapes = here.assign(volume=here.m * here.n * here.k).drop_duplicates(SHAPE_KEY) \
        .sort_values(["volume", "m", "n", "k", "layout", "trans"])
    slots = {tuple(key): i for i, key in enumerate(shapes[SHAPE_KEY].itertuples(index=False))}
    platforms = sorted(here.platform.unique())
    precisions = sorted(here.precision.unique())
    vendor, per_panel = vendor_legend(vendors, platforms)
    kernels = kernel_order(set(here.kernel))
    fig, axes = panel_grid(platforms, precisions, width=max(5.4, 0.95 * len(slots) + 1.2), height=4.4)
    for i, platform in enumerate(platforms):
        for j, precision in enumerate(precisions):
            ax = axes[i][j]
            rows = here[(here.platform == platform) & (here.precision == precision)]
            best = best_rows(rows, "gflops", ["kernel"] + SHAPE_KEY) if len(rows) else rows
            drawn = []
            for position, kernel in enumerate(kernels):
                points = best[best.kernel == kernel]
                offset = (position - (len(kernels) - 1) / 2) * 0.7 / len(kernels)
                x = [slots[tuple(key)] + offset for key in points[SHAPE_KEY].itertuples(index=False)]
                colour, marker = kernel_style(kernel, all_kernels)
                drawn += draw_points(ax, x, points, "gflops", colour, marker, None)
            fit_log_axis(ax, drawn)
            ax.set_xticks(range(len(slots)))
            ax.set_xticklabels([shape_label(r) for r in shapes.itertuples()], fontsize=7.5)
            ax.set_xlim(-0.6, len(slots) - 0.4)
            ax.grid(True, which="both", alpha=0.3)
            ax.set_title(panel_title(platform, precision, vendors, per_panel), fontsize=10)
            ax.set_ylabel("GFLOP/s")
    finish(fig, path, "GFLOP/s by problem shape (m x n x k), study %s: %s" % (study, platform_list(platforms)),
           kernel_handles(kernels, all_kernels, vendor))


def scaling_panels(data):
    """(device, backend, precision, problem rows) per panel of the thread-scaling figure: for each
    host device and backend run at two or more thread counts, the problem run at the most of
    them (the largest product among equals)."""
    panels = []
    for (device, backend, precision), rows in data.groupby(["device", "backend", "precision"]):
        counts = rows.groupby(SHAPE_KEY).threads.nunique()
        counts = counts[counts >= 2]
        if counts.empty:
            continue
        volume = [m * n * k for m, n, k, *_ in counts.index]
        best = max(zip(counts, volume, counts.index))[2]
        chosen = rows[np.logical_and.reduce([rows[key] == value for key, value in zip(SHAPE_KEY, best)])]
        panels.append((device, backend, precision, chosen))
    return panels


THREAD_COLUMNS = ["device", "backend", "precision", "m", "n", "k", "kernel", "threads", "gflops",
                  "speedup", "efficiency", "source"]


def thread_efficiencies(best):
    """Per kernel of one panel's best rows: speed-up over its fewest threads, and efficiency, that
    speed-up over the ratio of the thread counts (1: linear scaling)."""
    rows = []
    for kernel, line in best.groupby("kernel"):
        line = line.sort_values("threads")
        first = line.iloc[0]
        for row in line.itertuples():
            speedup = row.gflops / first.gflops
            rows.append({"kernel": kernel, "threads": row.threads, "gflops": row.gflops,
                         "speedup": speedup, "efficiency": speedup * first.threads / row.threads,
                         "source": row.source})
    return rows


def plot_thread_scaling(df, path, vendors):
    """GFLOP/s against the thread count on host backends, with linear scaling from each kernel's
    fewest threads dotted, and each kernel's efficiency at the most threads beside its last point:
    the figure of a thread-scaling study. Writes thread_scaling.csv beside it and prints the
    efficiencies at the most threads."""
    data = df[df.valid & ~df.backend.isin(GPU_BACKENDS) & df.concurrency.notna()]
    data = data.assign(threads=[int(float(c)) for c in data.concurrency])
    panels = scaling_panels(data)
    if not panels:
        print("thread scaling: no device and backend with results at two or more thread counts: "
              "%s not written" % path)
        return
    table = []
    machines = sorted({(device, backend) for device, backend, *_ in panels})
    precisions = sorted({precision for _, _, precision, _ in panels})
    all_kernels = set(df.kernel)
    platforms = sorted({p for *_, rows in panels for p in rows.platform})
    vendor, per_panel = vendor_legend(vendors, platforms)
    fig, axes = panel_grid(machines, precisions)
    for ax in axes.flat:
        ax.set_visible(False)
    for device, backend, precision, rows in panels:
        ax = axes[machines.index((device, backend))][precisions.index(precision)]
        ax.set_visible(True)
        best = best_rows(rows, "gflops", ["kernel", "threads"])
        drawn = []
        for kernel in kernel_order(set(best.kernel)):
            line = best[best.kernel == kernel].sort_values("threads")
            colour, marker = kernel_style(kernel, all_kernels)
            drawn += draw_points(ax, line.threads, line, "gflops", colour, marker,
                                 "--" if kernel == VENDOR else "-")
            ideal = line.gflops.iloc[0] * line.threads / line.threads.iloc[0]
            ax.plot(line.threads, ideal, color=colour, linestyle=":", linewidth=1)
            drawn += list(ideal)
        first = rows.iloc[0]
        for row in thread_efficiencies(best):
            table.append(dict(row, device=device, backend=backend, precision=precision, m=first.m,
                              n=first.n, k=first.k))
            if row["threads"] == best.threads.max() and row["threads"] > best.threads.min():
                colour, _ = kernel_style(row["kernel"], all_kernels)
                ax.annotate("%.2f" % row["efficiency"], (row["threads"], row["gflops"]),
                            xytext=(4, 0), textcoords="offset points", color=colour, fontsize=8,
                            va="center")
                print("thread scaling: %s (%s) %s %s: efficiency %.3f at %d threads against %d"
                      % (device, backend, precision, row["kernel"], row["efficiency"],
                         row["threads"], best.threads.min()))
        log2_axis(ax, best.threads.unique())
        fit_log_axis(ax, drawn)
        title = "%s (%s), %s, %dx%dx%d" % (device, backend, precision, first.m, first.n, first.k)
        if per_panel:
            title += "\n%s: %s" % (VENDOR, " / ".join(sorted({vendors.get(p, "?") for p in rows.platform})))
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xlabel("threads")
        ax.set_ylabel("GFLOP/s")
    csv = path.with_suffix(".csv")
    pd.DataFrame(table, columns=THREAD_COLUMNS).to_csv(csv, index=False, float_format="%.6g")
    print("wrote %s" % csv)
    finish(fig, path, "Thread scaling (dotted: linear from the fewest threads; beside the last "
           "point: GFLOP/s over linear): "
           + ", ".join("%s (%s)" % machine for machine in machines),
           kernel_handles(kernel_order(set(data.kernel)), all_kernels, vendor))
