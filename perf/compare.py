#!/usr/bin/env python3
"""Compares tilemm result files: two builds, machines, backends or Kokkos versions on one spec.

  perf/compare.py A.json B.json                    B against A
  perf/compare.py A.json B.json C.json --out DIR   B and C against A; DIR/compare.csv, compare.png
  perf/compare.py a-1.json,a-2.json b-1.json,b-2.json   rounds of each side pooled (perf/ab.sh)

Each argument is one side: a tilemm --json file, or several joined by commas, whose timed runs are
pooled (the rounds of perf/ab.sh). The first side is the baseline, A; the others are B, C, ...
Results are matched by problem and kernel (name, kernel, precision, layout, ops, m, n, k, alpha,
beta, and under MPI ranks and distribution), whatever their backend, device or tile (the launch
column then shows A's tile -> B's); where a side has several results of one problem and kernel (a
sweep of tiles), by their launch too (tile, team size, split of K).

For each match: each side's GFLOP/s (from the median of its timed runs) and spread (the standard
deviation of its timed runs over their median, in per cent), and the ratio B/A of GFLOP/s (above 1:
B is faster). The difference is within noise ("~") when the two medians are closer than the sum of
the two standard deviations; a side with one timed run has no spread, and its difference is not
judged ("?"). A result that failed validation is marked FAIL.

Outputs: the table on stdout, a line per compared side (matches, geometric mean of the ratios, how
many within noise, results found on one side only); with --out DIR, DIR/compare.csv (one row per
match and compared side) and DIR/compare.png (the ratios with their spread, where matplotlib is).

Exit status: 0; 1 when a compared side matched no result of the baseline; 2 for a bad option or a
file that cannot be read.
"""
import argparse
import csv
import json
import math
import statistics
import sys
from pathlib import Path

PROBLEM = ("name", "kernel", "precision", "layout", "trans_a", "trans_b", "m", "n", "k", "alpha",
           "beta", "ranks", "distribution")
LAUNCH = ("tile", "team_size", "split_k", "split_tiles")
COLUMNS = ["side", "name", "kernel", "precision", "layout", "op", "m", "n", "k", "launch",
           "a_gflops", "a_spread_pct", "a_runs", "b_gflops", "b_spread_pct", "b_runs", "ratio",
           "within_noise", "a_verdict", "b_verdict"]


def fail(message):
    print("compare.py: " + message, file=sys.stderr)
    sys.exit(2)


def read_side(argument):
    """The results of one side: (label, list of result rows), each row with the file it came from."""
    rows = []
    paths = [p for p in argument.split(",") if p]
    for path in paths:
        try:
            doc = json.loads(Path(path).read_text())
        except (OSError, ValueError) as error:
            fail("%s: cannot read it: %s" % (path, error))
        if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith("tilemm.results/"):
            fail("%s: not a tilemm --json file (schema tilemm.results/1)" % path)
        if doc.get("status") != "complete":
            print("%s: status '%s': the results finished so far" % (path, doc.get("status")),
                  file=sys.stderr)
        rows += doc.get("results", [])
    label = Path(paths[0]).stem + ("+%d" % (len(paths) - 1) if len(paths) > 1 else "")
    return label, rows


def timed_runs(row):
    """A result's timed runs in seconds: its times_s, else its median alone (older files)."""
    times = row.get("times_s")
    if isinstance(times, list) and times:
        return [float(t) for t in times]
    return [float(row["time_median_s"])]


def group(rows):
    """{problem key: {launch key: [rows]}}."""
    groups = {}
    for row in rows:
        problem = tuple(row.get(key) for key in PROBLEM)
        launch = tuple(row.get(key) for key in LAUNCH)
        groups.setdefault(problem, {}).setdefault(launch, []).append(row)
    return groups


def figures(rows):
    """(GFLOP/s, spread as a fraction or None, timed runs, median seconds, stddev, verdict) of the
    pooled timed runs of `rows` (one result, or its rounds)."""
    times = [t for row in rows for t in timed_runs(row)]
    median = statistics.median(times)
    stddev = statistics.stdev(times) if len(times) > 1 else None
    if stddev is None and len(rows) == 1 and (rows[0].get("time_stddev_s") or 0) > 0:
        stddev = float(rows[0]["time_stddev_s"])
    r = rows[0]
    gflops = 2.0 * r["m"] * r["n"] * r["k"] / median * 1e-9
    verdict = "fail" if any(row.get("verdict") != "pass" for row in rows) else "pass"
    return gflops, (stddev / median if stddev is not None else None), len(times), median, stddev, \
        verdict


def matches(base, other):
    """(problem key, launch text, A rows, B rows) of each result found on both sides, and the count
    of results on one side only."""
    found, alone = [], 0
    for problem in sorted(set(base) | set(other), key=str):
        a, b = base.get(problem, {}), other.get(problem, {})
        if not a or not b:
            alone += len(a) + len(b)
            continue
        if len(a) == 1 and len(b) == 1:  # one result each: matched whatever their launches
            (la, ra), (lb, rb) = next(iter(a.items())), next(iter(b.items()))
            found.append((problem, la[0] if la == lb else "%s -> %s" % (la[0], lb[0]), ra, rb))
            continue
        for launch in sorted(set(a) | set(b), key=str):
            if launch in a and launch in b:
                found.append((problem, launch[0] or "", a[launch], b[launch]))
            else:
                alone += 1
    return found, alone


def compare(label, base, other):
    """The rows of compare.csv for one compared side, and its line of summary."""
    found, alone = matches(base, other)
    rows = []
    for problem, launch, a_rows, b_rows in found:
        key = dict(zip(PROBLEM, problem))
        a, b = figures(a_rows), figures(b_rows)
        judged = a[4] is not None and b[4] is not None
        rows.append({
            "side": label, "name": key["name"], "kernel": key["kernel"],
            "precision": key["precision"], "layout": key["layout"],
            "op": "%s%s" % (key["trans_a"], key["trans_b"]), "m": key["m"], "n": key["n"],
            "k": key["k"], "launch": launch or "",
            "a_gflops": a[0], "a_spread_pct": None if a[1] is None else 100 * a[1], "a_runs": a[2],
            "b_gflops": b[0], "b_spread_pct": None if b[1] is None else 100 * b[1], "b_runs": b[2],
            "ratio": b[0] / a[0],
            "within_noise": (abs(a[3] - b[3]) <= a[4] + b[4]) if judged else None,
            "a_verdict": a[5], "b_verdict": b[5]})
    if not rows:
        return rows, "%s: no result matches the baseline's (%d on one side only)" % (label, alone)
    mean = math.exp(statistics.fmean(math.log(r["ratio"]) for r in rows))
    noise = sum(1 for r in rows if r["within_noise"])
    return rows, ("%s against the baseline: %d matched, geometric mean of B/A %.3f, %d within "
                  "noise, %d on one side only" % (label, len(rows), mean, noise, alone))


def spread_text(value):
    return "   -  " if value is None else "%5.1f%%" % value


def print_table(rows, labels):
    for letter, label in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", labels):
        print("%s: %s" % (letter, label))
    letters = dict(zip(labels[1:], "BCDEFGHIJKLMNOPQRSTUVWXYZ"))
    print("%-2s %-16s %-15s %-6s %-5s %-2s %17s %-18s %10s %6s %10s %6s %6s" % (
        "", "name", "kernel", "prec", "lay", "op", "m x n x k", "launch", "A GFLOP/s",
        "spread", "GFLOP/s", "spread", "ratio"))
    for r in rows:
        mark = {True: "~", False: "", None: "?"}[r["within_noise"]]
        if "fail" in (r["a_verdict"], r["b_verdict"]):
            mark += " FAIL"
        shape = "%dx%dx%d" % (r["m"], r["n"], r["k"])
        print("%-2s %-16.16s %-15s %-6s %-5s %-2s %17s %-18.18s %10.2f %6s %10.2f %6s %6.3f %s" % (
            letters[r["side"]], r["name"], r["kernel"], r["precision"], r["layout"], r["op"], shape,
            r["launch"], r["a_gflops"], spread_text(r["a_spread_pct"]), r["b_gflops"],
            spread_text(r["b_spread_pct"]), r["ratio"], mark))
    print("ratio: the side's GFLOP/s over A's; ~: within noise (the medians closer than the sum "
          "of the standard deviations); ?: a side without a spread")


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("%.6g" % v if isinstance(v, float) else
                                 "" if v is None else v) for k, v in r.items()})


def plot(rows, path, a_label):
    """The ratios, one row per match, with their spread; hollow where within noise."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("compare.py: no matplotlib: %s not drawn" % path, file=sys.stderr)
        return False
    labels = []
    for r in rows:
        label = "%s %s %s %s %dx%dx%d" % (r["name"], r["kernel"], r["precision"], r["layout"],
                                          r["m"], r["n"], r["k"])
        if label not in labels:
            labels.append(label)
    sides = list(dict.fromkeys(r["side"] for r in rows))
    fig, ax = plt.subplots(figsize=(9, 1.5 + 0.28 * len(labels) * max(1, len(sides)) ** 0.5))
    for i, side in enumerate(sides):
        ours = [r for r in rows if r["side"] == side]
        y = [labels.index("%s %s %s %s %dx%dx%d" % (r["name"], r["kernel"], r["precision"],
                                                     r["layout"], r["m"], r["n"], r["k"]))
             + 0.15 * (i - (len(sides) - 1) / 2) for r in ours]
        x = [r["ratio"] for r in ours]
        # The ratio's spread: its two sides' relative spreads in quadrature.
        err = [r["ratio"] * math.hypot((r["a_spread_pct"] or 0) / 100, (r["b_spread_pct"] or 0) / 100)
               for r in ours]
        colour = "C%d" % i
        ax.errorbar(x, y, xerr=err, fmt="none", ecolor=colour, alpha=0.6)
        noisy = [j for j, r in enumerate(ours) if r["within_noise"]]
        clear = [j for j, r in enumerate(ours) if not r["within_noise"]]
        ax.scatter([x[j] for j in clear], [y[j] for j in clear], color=colour, label=side, zorder=3)
        ax.scatter([x[j] for j in noisy], [y[j] for j in noisy], facecolors="none",
                   edgecolors=colour, zorder=3,
                   label="%s, within noise" % side if noisy else None)
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("GFLOP/s ratio to %s (above 1: faster)" % a_label)
    ax.legend(fontsize=7, loc="best")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sides", nargs="+", metavar="RESULT.json[,RESULT.json...]",
                        help="the baseline, then each side to compare with it")
    parser.add_argument("--out", metavar="DIR", help="write DIR/compare.csv and DIR/compare.png")
    args = parser.parse_args(argv)
    if len(args.sides) < 2:
        parser.error("give the baseline and at least one side to compare with it")
    a_label, a_rows = read_side(args.sides[0])
    base = group(a_rows)
    rows, lines, unmatched, labels = [], [], False, [a_label]
    for argument in args.sides[1:]:
        label, b_rows = read_side(argument)
        labels.append(label)
        found, line = compare(label, base, group(b_rows))
        rows += found
        lines.append(line)
        unmatched = unmatched or not found
    print_table(rows, labels)
    for line in lines:
        print(line)
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            fail("--out %s: cannot make the folder: %s" % (out, error.strerror or error))
        write_csv(rows, out / "compare.csv")
        print("wrote %s" % (out / "compare.csv"))
        if rows and plot(rows, out / "compare.png", a_label):
            print("wrote %s" % (out / "compare.png"))
    return 1 if unmatched else 0


if __name__ == "__main__":
    sys.exit(main())
