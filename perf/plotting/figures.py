"""The figures against problem size, and the helpers every figure shares: one style per kernel,
plain log axes, panels per platform and precision, one legend under the title."""
import math
import textwrap

import matplotlib

matplotlib.use("Agg")  # files only: batch nodes have no display
import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .read import VENDOR


# One colour and marker per kernel in every plot, so that a kernel is recognised at a glance.
KERNEL_STYLE = {
    "naive": ("#8c8c8c", "v"),
    "tiled": ("#1f77b4", "s"),
    "register-tiled": ("#d62728", "o"),
    VENDOR: ("#000000", "D"),
}
SPARE_STYLES = [("#2ca02c", "^"), ("#9467bd", "P"), ("#ff7f0e", "X"), ("#17becf", "<"),
                ("#e377c2", ">"), ("#bcbd22", "h")]


def kernel_order(kernels):
    known = [k for k in KERNEL_STYLE if k in kernels]
    return known + sorted(k for k in kernels if k not in KERNEL_STYLE)


def kernel_style(kernel, all_kernels):
    if kernel in KERNEL_STYLE:
        return KERNEL_STYLE[kernel]
    others = sorted(k for k in all_kernels if k not in KERNEL_STYLE)
    return SPARE_STYLES[others.index(kernel) % len(SPARE_STYLES)]


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
