#!/usr/bin/env python3
"""Runs perf/compare.py on two recorded result files of one spec (small-skinny on the H200, two
builds) and checks its CSV against ratios and noise verdicts computed here from the raw JSON; then
perf/ab.sh with two stand-in binaries that write those files, its summary made by compare.py.

  python3 tests/perf/test_compare.py      exit 0: passed, 1: failed
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMPARE = ROOT / "perf" / "compare.py"
A = ROOT / "perf" / "results" / "h200" / "2026-11-26-small-skinny-19c7a2e.json"
B = ROOT / "perf" / "results" / "h200" / "ladder" / "2026-11-26-small-skinny-d27d125.json"
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


def expected():
    """{(name, kernel, precision, m, n, k): (ratio, within noise)} from the raw timed runs."""
    def runs(path):
        with open(path) as f:
            return {(r["name"], r["kernel"], r["precision"], r["m"], r["n"], r["k"]): r["times_s"]
                    for r in json.load(f)["results"]}
    a, b = runs(A), runs(B)
    table = {}
    for key in a.keys() & b.keys():
        ta, tb = a[key], b[key]
        ma, mb = statistics.median(ta), statistics.median(tb)
        table[key] = (ma / mb, abs(ma - mb) <= statistics.stdev(ta) + statistics.stdev(tb))
    return table


def check_compare(tmp):
    run = subprocess.run([sys.executable, str(COMPARE), str(A), str(B), "--out", str(tmp)],
                         capture_output=True, text=True)
    print(run.stdout + run.stderr)
    check(run.returncode == 0, "compare.py exits with 0 (got %d)" % run.returncode)
    with open(tmp / "compare.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    want = expected()
    check(len(rows) == len(want) == 40, "compare.csv has a row per problem and kernel (%d)" % len(rows))
    wrong = []
    for row in rows:
        key = (row["name"], row["kernel"], row["precision"], int(row["m"]), int(row["n"]), int(row["k"]))
        ratio, noise = want[key]
        if abs(float(row["ratio"]) / ratio - 1) > 1e-5 or (row["within_noise"] == "True") != noise:
            wrong.append((key, row["ratio"], row["within_noise"], ratio, noise))
    check(not wrong, "each ratio is the medians' ratio, each noise verdict the stddevs' (%r)" % wrong[:2])
    check(0 < sum(noise for _, noise in want.values()) < len(want),
          "the files have results both within noise and not (the check means something)")
    check(all(float(r["a_spread_pct"]) > 0 and float(r["b_spread_pct"]) > 0 for r in rows),
          "both spreads are in every row")
    launches = {r["launch"] for r in rows if r["kernel"] == "tensor-tiled"}
    check(any(" -> " in launch for launch in launches),
          "a kernel whose tile differs between the builds is matched, both tiles named")
    mean = statistics.geometric_mean(r for r, _ in want.values())
    check("40 matched, geometric mean of B/A %.3f, %d within noise" % (
        mean, sum(n for _, n in want.values())) in run.stdout, "the summary line")
    try:
        import matplotlib  # noqa: F401
        png = (tmp / "compare.png").read_bytes() if (tmp / "compare.png").exists() else b""
        check(png[:8] == b"\x89PNG\r\n\x1a\n", "compare.png is a PNG")
    except ImportError:
        print("(no matplotlib: compare.png not checked)")
    bad = subprocess.run([sys.executable, str(COMPARE), str(A), str(tmp / "compare.csv")],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "compare.csv: cannot read it" in bad.stderr
          and "Traceback" not in bad.stderr, "a file that is no result file: exit status 2")


def check_ab(tmp):
    """perf/ab.sh with stand-ins for the two binaries, each writing one recorded file."""
    for side, source in (("a", A), ("b", B)):
        stub = tmp / ("tilemm-" + side)
        stub.write_text('#!/bin/bash\nwhile [[ $1 != --json ]]; do shift; done\ncp "%s" "$2"\n' % source)
        stub.chmod(0o755)
    out = tmp / "ab"
    run = subprocess.run(["bash", str(ROOT / "perf" / "ab.sh"), str(tmp / "tilemm-a"),
                          str(tmp / "tilemm-b"), "spec.yaml", str(out), "2"],
                         capture_output=True, text=True,
                         env=dict(os.environ, PATH=str(Path(sys.executable).parent) + ":" +
                                  os.environ.get("PATH", "")))
    print(run.stdout + run.stderr)
    summary = (out / "ab-summary.txt").read_text() if (out / "ab-summary.txt").exists() else ""
    check(run.returncode == 0 and "ab-a-1+1" in summary and "40 matched" in summary
          and (out / "compare.csv").exists(),
          "perf/ab.sh: two rounds a side, pooled by compare.py into ab-summary.txt and compare.csv")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MPLCONFIGDIR"] = tmp  # matplotlib's cache, not the user's home
        check_compare(Path(tmp))
        check_ab(Path(tmp))
    print("\n%d checks failed" % len(FAILURES) if FAILURES else "\nall checks passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
