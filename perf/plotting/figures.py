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


DENSE_STEPS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)  # labels of an axis that spans a decade or so
WIDE_STEPS = (1.0, 2.0, 5.0)


def plain_log_axis(axis, low, high):
    """Log scale labelled in plain digits (GFLOP/s are read, not decoded), at 1, 2, 5 x 10^k, or
    denser when the axis spans less than about a decade and a half."""
    subs = DENSE_STEPS if high < 30 * low else WIDE_STEPS
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: "{:,.0f}".format(v) if v >= 1 else "%g" % v))
    axis.set_minor_formatter(NullFormatter())


def labelled_ends(low, high, steps):
    """The largest label at most `low` and the smallest at least `high`, labels being steps x 10^k."""
    labels = [s * 10.0 ** e for e in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 2)
              for s in steps]
    return max(v for v in labels if v <= low), min(v for v in labels if v >= high)


def fit_log_axis(ax, values):
    """A log y axis whose ends are labels beyond the smallest and the largest of `values` (the
    error bars' ends included), with a margin: no point sits past the last label, or on the
    frame. An axis that ends up spanning a decade or so gets the denser labels, and ends."""
    values = [v for v in values if v > 0 and math.isfinite(v)]
    if not values:
        return
    low, high = min(values) / 1.08, max(values) * 1.08
    bottom, top = labelled_ends(low, high, WIDE_STEPS)
    if top < 30 * bottom:
        bottom, top = labelled_ends(low, high, DENSE_STEPS)
    ax.set_yscale("log")
    ax.set_ylim(bottom, top)
    plain_log_axis(ax.yaxis, bottom, top)


def fit_linear_axis(ax, values, reference=None):
    """A y axis from 0 to a margin above the largest of `values` and the reference line."""
    values = [v for v in values if math.isfinite(v)] + ([reference] if reference is not None else [])
    ax.set_ylim(0, 1.1 * max(values + [0.1]))


def spread_of(rows, value):
    """The ends of each row's error bar in the units of `value`: the spread of its timed runs
    (gflops_low, gflops_high), scaled as `value` scales GFLOP/s; none where the run has none."""
    scale = rows[value] / rows.gflops
    low = (rows.gflops_low * scale).fillna(rows[value])
    high = (rows.gflops_high * scale).fillna(rows[value])
    return low, high


def draw_points(ax, x, rows, value, colour, marker, style, label=None):
    """A kernel's points with their spread as error bars; joined by a line unless style is None."""
    low, high = spread_of(rows, value)
    y = rows[value]
    ax.errorbar(x, y, yerr=[(y - low).clip(lower=0), (high - y).clip(lower=0)], color=colour,
                marker=marker, linestyle=style or "none", label=label, markersize=6, capsize=3,
                elinewidth=1)
    return list(low) + list(high)


def kernel_handles(kernels, all_kernels, vendor=None):
    """Legend entries, one per kernel; `vendor` names the library behind kokkos-kernels."""
    handles = []
    for kernel in kernels:
        colour, marker = kernel_style(kernel, all_kernels)
        label = "%s (%s)" % (kernel, vendor) if kernel == VENDOR and vendor else kernel
        handles.append(Line2D([], [], color=colour, marker=marker, label=label,
                              linestyle="--" if kernel == VENDOR else "-"))
    return handles


def vendor_legend(vendors, platforms):
    """What the legend says of kokkos-kernels: its library when every panel shares one, else that
    each panel's title names it. Returns (legend text, whether titles must name it)."""
    names = {vendors[p] for p in platforms if p in vendors}
    if len(names) <= 1:
        return (names.pop() if names else None), False
    return "the BLAS in each panel's title", True


def panel_title(platform, precision, vendors, per_panel):
    title = "%s, %s" % (platform, precision)
    if per_panel and platform in vendors:
        title += "\n%s: %s" % (VENDOR, vendors[platform])
    return title


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


def best_rows(data, value, keys):
    """Per key, the row of the best `value`: a tile sweep or a repeated run shows as its best
    point, with that run's spread."""
    return data.loc[data.groupby(keys)[value].idxmax()]


def draw_variants(ax, rows, x, value, all_kernels):
    """One line per kernel and variant (layout, ops, beta) of `rows` against column `x`, with a
    legend of the variants in the panel when there are several; returns the values drawn."""
    variants = rows[["layout", "trans", "beta_nonzero"]].drop_duplicates()
    styles = ["-", ":", "-.", (0, (5, 1))]
    drawn = []
    for kernel in kernel_order(set(rows.kernel)):
        colour, marker = kernel_style(kernel, all_kernels)
        for v, variant in enumerate(variants.itertuples(index=False)):
            line = rows[(rows.kernel == kernel) & (rows.layout == variant.layout)
                        & (rows.trans == variant.trans)
                        & (rows.beta_nonzero == variant.beta_nonzero)].sort_values(x)
            if line.empty:
                continue
            style = "--" if kernel == VENDOR and len(variants) == 1 else styles[v % len(styles)]
            label = kernel if len(variants) == 1 else "%s (%s)" % (kernel, variant_label(*variant))
            drawn += draw_points(ax, line[x], line, value, colour, marker, style, label)
    if len(variants) > 1:
        ax.legend(fontsize=7)
    return drawn


def plot_against_size(df, value, path, ylabel, title, log_y, vendors, reference=None):
    """`value` of square products against n, one panel per platform and precision, each point the
    best of its problem with the spread of its timed runs; `vendors` names each platform's BLAS."""
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
    vendor, per_panel = vendor_legend(vendors, platforms)
    fig, axes = panel_grid(platforms, precisions)
    for i, platform in enumerate(platforms):
        for j, precision in enumerate(precisions):
            ax = axes[i][j]
            here = data[(data.platform == platform) & (data.precision == precision)]
            ax.set_title(panel_title(platform, precision, vendors, per_panel), fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            if here.empty:
                ax.text(0.5, 0.5, "no results", ha="center", va="center", transform=ax.transAxes)
                continue
            lines = best_rows(here, value, ["kernel", "layout", "trans", "beta_nonzero", "n"])
            drawn = draw_variants(ax, lines, "n", value, all_kernels)
            if reference is not None:
                ax.axhline(reference, color=KERNEL_STYLE[VENDOR][0], linestyle="--", linewidth=1)
            log2_axis(ax, here.n.unique())
            if log_y:
                fit_log_axis(ax, drawn)
            else:
                fit_linear_axis(ax, drawn, reference)
            ax.set_xlabel("n (m = n = k)")
            ax.set_ylabel(ylabel)
    handles = kernel_handles(kernel_order(set(data.kernel)), all_kernels, vendor)
    if reference is not None:
        handles.append(Line2D([], [], color=KERNEL_STYLE[VENDOR][0], linestyle="--",
                              label="%s%s = %g" % (VENDOR, " (%s)" % vendor if vendor else "", reference)))
    finish(fig, path, title, handles)
