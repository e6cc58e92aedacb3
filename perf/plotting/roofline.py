"""The roofline figure: GFLOP/s against arithmetic intensity under the compute and bandwidth
roofs of each platform whose peak is known."""
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from .figures import (finish, fit_log_axis, kernel_handles, kernel_order, kernel_style, panel_grid,
                      panel_title, platform_list, vendor_legend)


# Peaks of known devices, keyed by the device name the results report. Each figure says where it
# comes from. CPU peaks depend on the exact model, clock and core count: give them with --peak.
KNOWN_DEVICES = {
    "NVIDIA H200": {
        "peak": {"float": (66900.0, "vendor datasheet"),
                 "double": (33500.0, "vendor datasheet, without tensor cores")},
        "bandwidth": (4264.0, "copy, device to device, measured 2026-11-24"),
    },
}


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


def plot_roofline(df, path, peaks, bandwidths, vendors):
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
    vendor, per_panel = vendor_legend(vendors, platforms)
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
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
        ax.set_xlim(x[0], x[-1])
        # Room below the points for the box of the roofs' figures.
        fit_log_axis(ax, [min(here.gflops.min(), roof[0]) / 8, max(peak, here.gflops.max()) * 1.6])
        ax.grid(True, which="both", alpha=0.3)
        ax.set_title(panel_title(platform, precision, vendors, per_panel), fontsize=10)
        ax.set_xlabel("arithmetic intensity (FLOP/byte, minimal traffic)")
        ax.set_ylabel("GFLOP/s")
    if above:
        print("roofline: %d results above the compute roof (the roof does not cover the units they "
              "used, e.g. FP64 tensor cores): %s" % (len(above), "; ".join(above[:4])
                                                      + (" ..." if len(above) > 4 else "")))
    shapes = [Line2D([], [], marker="o", color="#444444", linestyle="", label="square"),
              Line2D([], [], marker="o", color="#444444", markerfacecolor="none", linestyle="",
                     label="other shapes")]
    handles = kernel_handles(kernel_order(set(data[data.platform.isin(platforms)].kernel)), all_kernels,
                             vendor)
    finish(fig, path, "Roofline (minimal traffic): " + platform_list(platforms), handles + shapes)
