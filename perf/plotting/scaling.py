"""The multi-GPU (or multi-node) scaling study: each distributed result (one with `ranks`) against
the one-process result of the same kernel, precision and problem family on the same device.

A problem's family is its name without a trailing rank count ("weak-4" and "weak-1" are "weak";
"strong" is "strong"). A distributed result whose m, n, k equal its baseline's is strong scaling,
else weak scaling. Both get speedup = baseline time / time and efficiency = GFLOP/s / (ranks x
baseline GFLOP/s); for strong scaling efficiency is speedup / ranks."""
import re

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.lines import Line2D

from .figures import kernel_order, kernel_style, log2_axis

SCALING_COLUMNS = ["platform", "family", "scaling", "kernel", "precision", "comm", "ranks", "grid",
                   "m", "n", "k", "time_s", "gflops", "gflops_per_rank", "comm_exposed",
                   "baseline_time_s", "baseline_gflops", "speedup", "efficiency", "source",
                   "baseline_source"]
COMM_STYLE = {"nccl": "-", "mpi": "--"}  # "mpi (host-staged)" and "mpi (device)" are mpi
PRECISION_MARKER = {"double": "o", "float": "s"}


def family_of(problem):
    return re.sub(r"-\d+$", "", str(problem))


def baseline_of(row, ones):
    """The one-process result a distributed row is measured against: same family, kernel,
    precision and platform; among several, the one recorded nearest in time."""
    match = ones[(ones.family == row.family) & (ones.kernel == row.kernel)
                 & (ones.precision == row.precision) & (ones.platform == row.platform)]
    if match.empty:
        return None
    gap = (pd.to_datetime(match.date, utc=True, errors="coerce")
           - pd.to_datetime(row.date, utc=True, errors="coerce")).abs()
    return match.loc[gap.fillna(pd.Timedelta.max).idxmin()]


def scaling_table(df):
    """One row per distributed SUMMA result that has a baseline (SCALING_COLUMNS)."""
    data = df[df.valid].assign(family=[family_of(p) for p in df[df.valid].problem])
    ones = data[data.ranks.isna()]
    rows = []
    for row in data[data.ranks.notna() & (data.distribution == "summa")].itertuples():
        base = baseline_of(row, ones)
        if base is None:
            continue
        strong = (row.m, row.n, row.k) == (base.m, base.n, base.k)
        rows.append({
            "platform": row.platform, "family": row.family, "scaling": "strong" if strong else "weak",
            "kernel": row.kernel, "precision": row.precision, "comm": row.comm,
            "ranks": int(row.ranks), "grid": row.grid, "m": row.m, "n": row.n, "k": row.k,
            "time_s": row.time_s, "gflops": row.gflops, "gflops_per_rank": row.gflops_per_rank,
            "comm_exposed": row.comm_exposed, "baseline_time_s": base.time_s,
            "baseline_gflops": base.gflops, "speedup": base.time_s / row.time_s,
            "efficiency": row.gflops / (row.ranks * base.gflops), "source": row.source,
            "baseline_source": base.source})
    table = pd.DataFrame(rows, columns=SCALING_COLUMNS)
    return table.sort_values(["platform", "scaling", "family", "precision", "kernel", "comm", "ranks"])


def comm_family(comm):
    return str(comm).split(" ")[0]


def plot_scaling(df, path):
    """Weak-scaling efficiency and strong-scaling speed-up against the ranks, one panel per
    scaling kind and platform, one line per kernel x precision x communicator, each starting at
    the one-process baseline (1 rank: efficiency and speed-up 1). Writes scaling.csv beside it."""
    table = scaling_table(df)
    if table.empty:
        print("scaling: no distributed result with a one-process baseline of its family: "
              "%s and scaling.csv not written" % path)
        return
    table.to_csv(path.with_suffix(".csv"), index=False, float_format="%.6g")
    print("wrote %s" % path.with_suffix(".csv"))
    panels = sorted(table.groupby(["scaling", "platform"]).groups, key=lambda p: (p[0] != "weak", p[1]))
    fig, axes = plt.subplots(1, len(panels), squeeze=False, figsize=(6.4 * len(panels), 5.2))
    all_kernels = set(table.kernel)
    for ax, (scaling, platform) in zip(axes[0], panels):
        here = table[(table.scaling == scaling) & (table.platform == platform)]
        value = "efficiency" if scaling == "weak" else "speedup"
        ranks = [1] + sorted(here.ranks.unique())
        for (kernel, precision, comm), line in here.groupby(["kernel", "precision", "comm"]):
            line = line.sort_values("ranks")
            colour, _ = kernel_style(kernel, all_kernels)
            ax.plot([1] + list(line.ranks), [1.0] + list(line[value]), color=colour,
                    linestyle=COMM_STYLE.get(comm_family(comm), ":"),
                    marker=PRECISION_MARKER.get(precision, "x"), markersize=6)
        if scaling == "strong":
            ax.plot(ranks, ranks, color="grey", linestyle=":", linewidth=1)
            ax.set_ylabel("speed-up over one process (dotted: linear)")
        else:
            ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
            ax.set_ylabel("efficiency: GFLOP/s / (ranks x one-process GFLOP/s)")
            ax.set_ylim(0, 1.1)
        log2_axis(ax, ranks)
        first = here.sort_values("ranks").iloc[-1]
        ax.set_title("%s scaling, %s\nlargest: %dx%dx%d on %d ranks" % (
            scaling, platform, first.m, first.n, first.k, first.ranks), fontsize=10)
        ax.set_xlabel("ranks (GPUs)")
        ax.grid(True, alpha=0.3)
    handles = [Line2D([], [], color=kernel_style(k, all_kernels)[0], label=k)
               for k in kernel_order(all_kernels)]
    handles += [Line2D([], [], color="black", marker=m, linestyle="none", label=p)
                for p, m in PRECISION_MARKER.items() if p in set(table.precision)]
    handles += [Line2D([], [], color="black", linestyle=COMM_STYLE.get(c, ":"), label=c)
                for c in sorted({comm_family(c) for c in table.comm})]
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), frameon=False, fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote %s" % path)
