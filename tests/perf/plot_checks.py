"""What perf/plot.py's tests share: the recorded result files they read, the checks' record of
failures, and plot.py run in this process with what each figure drew (tests/perf/test_plot.py)."""
import contextlib
import csv
import importlib.util
import io
import json
import math
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLOT = ROOT / "perf" / "plot.py"
DATA = ROOT / "tests" / "perf" / "data"
# The first recorded H200 run (its GPU and 16-core host), named so that later results in perf/results
# do not change what this test expects: two files kept here, and the square sweep the report's
# ladder cites.
CLI_FILES = [str(DATA / "2026-11-22-h200-cpu-vs-blas-ead5bd3.json"),
             str(DATA / "2026-11-22-h200-small-skinny-ead5bd3.json"),
             str(ROOT / "perf" / "results" / "h200" / "ladder" / "2026-11-22-square-gpu-ead5bd3.json")]
FIXTURE = DATA / "gbench-synthetic.json"
SYNTHETIC = "Synthetic Test CPU (openmp, 4 threads)"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FAILURES = []
VENDOR_NAME = "kokkos-kernels"


def check(condition, what):
    print("%s: %s" % ("ok  " if condition else "FAIL", what))
    if not condition:
        FAILURES.append(what)


def close(a, b, rel=1e-5):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=rel)


def number(text):
    return float(text) if text not in ("", None) else None


def platform_of(context, row):
    """The platform label plot.py gives a CLI result (device, backend, threads on host backends)."""
    device, backend = row["device"], row["backend"]
    if backend == "cuda":
        return "%s (%s)" % (device, backend)
    return "%s (%s, %d threads)" % (device, backend, int(context["concurrency"]))


def raw_cli_results():
    results = []
    for path in CLI_FILES:
        with open(path) as f:
            doc = json.load(f)
        results += [dict(r, platform=platform_of(doc["context"], r)) for r in doc["results"]]
    return results


def expected_efficiency(results, platform, kernel, precision):
    """Kernel GFLOP/s / kokkos-kernels GFLOP/s at the largest square n where both passed."""
    def square(name):
        return {r["n"]: r["gflops"] for r in results
                if r["platform"] == platform and r["kernel"] == name and r["precision"] == precision
                and r["m"] == r["n"] == r["k"] and r["verdict"] == "pass"}
    mine, vendor = square(kernel), square("kokkos-kernels")
    shared = set(mine) & set(vendor)
    return mine[max(shared)] / vendor[max(shared)] if shared else 0.0


def harmonic_mean(values):
    return 0.0 if min(values) <= 0 else len(values) / sum(1.0 / v for v in values)


def describe(fig):
    """What a test reads of a figure: the legend, the panels' titles and x labels, the error bars
    longer than zero, the panels with a point past their y limits, and the log axes whose ends
    carry no label."""
    from matplotlib.container import ErrorbarContainer
    axes = [ax for ax in fig.axes if ax.get_visible()]
    bars, outside, unlabelled, top = 0, [], [], 0.0
    for ax in axes:
        low, high = ax.get_ylim()
        ys = [y for line in ax.lines for y in line.get_ydata() if math.isfinite(y)]
        for container in ax.containers:
            if isinstance(container, ErrorbarContainer) and container.has_yerr:
                for segment in container.lines[2][0].get_segments():
                    ys += [segment[0][1], segment[1][1]]
                    bars += abs(segment[1][1] - segment[0][1]) > 0
        top = max([top] + ys)
        if any(not low < y < high for y in ys):
            outside.append(ax.get_title())
        ticks = ax.yaxis.get_major_locator().tick_values(low, high)
        if ax.get_yscale() == "log" and not all(any(math.isclose(t, end) for t in ticks) for end in (low, high)):
            unlabelled.append(ax.get_title())
    return {"legend": [t.get_text() for legend in fig.legends for t in legend.get_texts()],
            "titles": [ax.get_title() for ax in axes], "errorbars": bars, "outside": outside,
            "unlabelled": unlabelled, "top": top,
            "xlabels": [t.get_text() for ax in axes for t in ax.get_xticklabels()]}


def plot_in_process(files, out):
    """perf/plot.py's main in this process, each figure described as it is saved. Returns the exit
    status, what it printed, and {file name: description}."""
    import contextlib
    import io
    import matplotlib.figure
    spec = importlib.util.spec_from_file_location("plot", PLOT)
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    figures, printed, save = {}, io.StringIO(), matplotlib.figure.Figure.savefig

    def record(fig, path, *args, **kwargs):
        figures[Path(path).name] = describe(fig)
        return save(fig, path, *args, **kwargs)

    matplotlib.figure.Figure.savefig = record
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            status = plot.main([str(f) for f in files] + ["--out", str(out)])
    finally:
        matplotlib.figure.Figure.savefig = save
    return status, printed.getvalue(), figures


def plot_run(args, cwd=None):
    """perf/plot.py with `args` run in this process, which saves starting Python, pandas and
    matplotlib again: what subprocess.run(..., capture_output=True, text=True) would give, exit
    statuses through SystemExit included. An exception that a run would print as a traceback
    escapes instead."""
    spec = importlib.util.spec_from_file_location("plot", PLOT)
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        os.chdir(cwd or here)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = plot.main([str(a) for a in args])
            except SystemExit as stop:  # argparse's errors (2), sys.exit("message") (1)
                status = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
                if isinstance(stop.code, str):
                    print(stop.code, file=err)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def summary_row(out, **match):
    with open(out / "summary.csv", newline="") as f:
        found = [r for r in csv.DictReader(f) if all(r[k] == str(v) for k, v in match.items())]
    return found[0] if len(found) == 1 else None
