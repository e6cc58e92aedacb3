"""Pennycook's performance-portability metric: its figures per kernel and precision, their inputs,
the table printed and the bar chart. Beside each kernel's own figure, that of the best tilemm
kernel on each platform (BEST): on each platform the highest efficiency of tilemm's kernels there,
the kernel that reached it named in its note."""
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

from .figures import HEADER_INCHES, finish, kernel_order
from .read import VENDOR

BEST = "best tilemm kernel"


def portability(df):
    """Pennycook's performance portability per kernel and precision, and its inputs."""
    sweeps = df.groupby(["device", "backend"]).platform.nunique()
    for (device, backend), count in sweeps[sweeps > 1].items():
        print("portability: %s (%s) counts as %d platforms, one per thread count: a thread sweep's "
              "figure is thread_scaling.png" % (device, backend, count))
    inputs, figures = [], []
    for precision in sorted(df.precision.unique()):
        here = df[df.precision == precision]
        platforms = sorted(here[here.valid & (here.kernel == VENDOR)].platform.unique())
        without = sorted(set(here.platform) - set(platforms))
        if without:
            print("portability (%s): no valid %s result on %s: not in the platform set"
                  % (precision, VENDOR, ", ".join(without)))
        if len(platforms) < 2:
            if platforms:
                print("portability (%s): one platform (%s): the metric compares two or more: "
                      "left out" % (precision, platforms[0]))
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
            figures.append({"kernel": kernel, "precision": precision,
                            "portability": harmonic_mean(efficiencies), "platforms": len(platforms)})
        best = best_kernel_rows([r for r in inputs if r["precision"] == precision], platforms,
                                precision)
        inputs += best
        figures.append({"kernel": BEST, "precision": precision,
                        "portability": harmonic_mean([r["efficiency"] for r in best]),
                        "platforms": len(platforms)})
    inputs = pd.DataFrame(inputs)
    figures = pd.DataFrame(figures)
    if not inputs.empty:
        inputs = inputs.merge(figures[["kernel", "precision", "portability"]], on=["kernel", "precision"])
    return figures, inputs


def harmonic_mean(efficiencies):
    """Pennycook's metric over the platforms' efficiencies: 0 where one of them is 0."""
    return 0.0 if min(efficiencies) <= 0 else len(efficiencies) / sum(1 / e for e in efficiencies)


def best_kernel_rows(rows, platforms, precision):
    """The inputs of BEST for one precision: on each platform, the row of the tilemm kernel (not
    the vendor library) with the highest efficiency there, its note naming that kernel."""
    best = []
    for platform in platforms:
        here = [r for r in rows if r["platform"] == platform and r["kernel"] != VENDOR]
        top = max(here, key=lambda r: r["efficiency"], default=None)
        if top is None or top["efficiency"] <= 0:
            best.append({"kernel": BEST, "precision": precision, "platform": platform, "n": np.nan, "gflops": np.nan,
                         "vendor_gflops": np.nan, "efficiency": 0.0, "note": "no tilemm kernel"})
        else:
            best.append(dict(top, kernel=BEST, note="the best: %s" % top["kernel"]))
    return best


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
