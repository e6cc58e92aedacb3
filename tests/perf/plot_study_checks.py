"""perf/plot.py's checks of studies over threads and ranks, of a slow baseline, and of bad inputs
(run by tests/perf/test_plot.py)."""
import csv
import json

from plot_checks import (CLI_FILES, DATA, ROOT, VENDOR_NAME, check, close, expected_efficiency,
                         number, platform_of, plot_in_process, plot_run, summary_row)


def check_thread_scaling(tmp):
    """One machine's study at 1, 2 and 4 threads: thread_scaling.png, and a note that portability
    counts each thread count as a platform."""
    with open(CLI_FILES[0]) as f:
        doc = json.load(f)
    files = []
    for threads in (1, 2, 4):
        doc["context"]["concurrency"] = threads
        path = tmp / ("threads-%d.json" % threads)
        path.write_text(json.dumps(doc))
        files.append(path)
    status, printed, figures = plot_in_process(files, tmp / "threads")
    scaling = figures.get("thread_scaling.png", {})
    check(status == 0 and "threads" in printed and scaling.get("titles")
          and all("4096x4096x4096" in t for t in scaling["titles"]) and not scaling["outside"],
          "three thread counts of one machine: thread_scaling.png at the largest product they share")
    check("counts as 3 platforms, one per thread count" in printed,
          "the portability figure of a thread sweep says what it compares")
    # The same GFLOP/s at every count: speed-up 1, efficiency 1 / threads, printed and in the CSV.
    with open(tmp / "threads" / "thread_scaling.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["kernel"] == "register-tiled"]
    at4 = [r for r in rows if r["threads"] == "4"]
    check(at4 and all(abs(float(r["efficiency"]) - 0.25) < 1e-9 for r in at4)
          and "register-tiled: efficiency 0.250 at 4 threads against 1" in printed,
          "thread_scaling.csv and the printout: efficiency against the fewest threads")


def scaling_file(path, name, ranks, comm, m, n, k, seconds):
    """A tilemm result file of one problem in double, register-tiled and kokkos-kernels taking
    seconds[kernel]; ranks None: one process (no distributed keys)."""
    with open(CLI_FILES[2]) as f:
        template = json.load(f)
    results = []
    for kernel, time_s in seconds.items():
        r = dict([x for x in template["results"] if x["kernel"] == kernel][0], name=name, m=m, n=n, k=k,
                 precision="double", trans_a="N", trans_b="N", beta=0.0, time_median_s=time_s,
                 time_min_s=time_s, time_max_s=time_s, gflops=2.0 * m * n * k / time_s / 1e9)
        if ranks:
            r.update(ranks=ranks, grid="1x%d" % ranks, comm=comm, distribution="summa",
                     comm_exposed=0.5 if comm.startswith("mpi") else None,
                     gflops_per_rank=r["gflops"] / ranks)
        results.append(r)
    path.write_text(json.dumps(dict(template, results=results)))
    return path


def check_scaling(tmp):
    """Weak and strong scaling against the one-process run of the same family and kernel, in
    scaling.csv and scaling.png; the distributed results kept out of the one-GPU figures."""
    n, rt, kk = 1024, "register-tiled", VENDOR_NAME
    files = [scaling_file(tmp / "w1.json", "weak-1", None, None, n, n, n, {rt: 1.0, kk: 0.5}),
             scaling_file(tmp / "w2.json", "weak-2", 2, "nccl", n, 2 * n, n, {rt: 1.25, kk: 0.5}),
             scaling_file(tmp / "w2m.json", "weak-2", 2, "mpi (host-staged)", n, 2 * n, n, {rt: 2.0, kk: 1.0}),
             scaling_file(tmp / "s1.json", "strong", None, None, 2 * n, 2 * n, 2 * n, {rt: 8.0, kk: 4.0}),
             scaling_file(tmp / "s2.json", "strong", 2, "nccl", 2 * n, 2 * n, 2 * n, {rt: 5.0, kk: 1.6})]
    out = tmp / "scaling"
    status, printed, figures = plot_in_process(files, out)
    check(status == 0 and "scaling.png" in figures and (out / "scaling.csv").exists(),
          "distributed results with one-process baselines: scaling.png and scaling.csv")
    with open(out / "scaling.csv", newline="") as f:
        rows = {(r["scaling"], r["kernel"], r["comm"]): r for r in csv.DictReader(f)}
    expected = {("weak", "register-tiled", "nccl"): ("efficiency", 0.8),   # 2x the work in 1.25x the time
                ("weak", VENDOR_NAME, "mpi (host-staged)"): ("efficiency", 0.5),
                ("strong", "register-tiled", "nccl"): ("speedup", 1.6),
                ("strong", VENDOR_NAME, "nccl"): ("speedup", 2.5)}
    for key, (column, value) in expected.items():
        row = rows.get(key)
        check(row is not None and close(number(row[column]), value) and row["ranks"] == "2",
              "%s scaling of %s over %s on 2 ranks: %s %.2f" % (key + (column, value)))
    check(len(rows) == 6 and rows[("weak", VENDOR_NAME, "mpi (host-staged)")]["comm_exposed"] == "0.5",
          "one scaling row per distributed result, the exposed communication carried")
    top = figures.get("gflops_vs_size.png", {}).get("top")
    check(top is not None and close(top, 2.0 * 1024 ** 3 / 0.5 / 1e9),
          "GFLOP/s against n shows one-process results only (its highest point: %s)" % top)
    row = summary_row(out, kernel="register-tiled", precision="double", m=2 * n, n=2 * n, k=2 * n, ranks="")
    check(row is not None and close(number(row["best_fraction"]), 0.5),
          "a one-process result's best fraction is against the fastest one-process kokkos-kernels, "
          "not the faster distributed one")


def check_weak_baseline(tmp):
    """A second run of the same machine against a slow BLAS (a reference BLAS swapped in) must not
    raise the kernel's efficiency: the plots divide the best result by the best vendor result."""
    with open(CLI_FILES[0]) as f:
        doc = json.load(f)
    doc["context"]["blas"] = "OpenBLAS 0.3.21 fixture SkylakeX MAX_THREADS=64"
    fast = tmp / "fast-baseline.json"
    fast.write_text(json.dumps(doc))
    weak = json.loads(json.dumps(doc))
    weak["context"]["blas"] = "unidentified BLAS"
    weak["context"]["blas_library"] = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"
    for r in weak["results"]:
        if r["kernel"] == "kokkos-kernels":
            r["gflops"] /= 10
    path = tmp / "weak-baseline.json"
    path.write_text(json.dumps(weak))
    out = tmp / "weak-plots"
    run = plot_run([str(fast), str(path), "--out", str(out)])
    check(run.returncode == 0 and "2 vendor libraries" in run.stderr,
          "two runs against two BLAS on one platform: a note says that they are pooled")
    with open(out / "summary.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["kernel"] == "register-tiled" and r["precision"] == "float"
                and r["m"] == r["n"] == r["k"] == "4096"]
    results = [dict(r, platform=platform_of(doc["context"], r)) for r in doc["results"]]
    expected = expected_efficiency(results, rows[0]["platform"] if rows else "", "register-tiled", "float")
    check(len(rows) == 2 and all(close(number(r["best_fraction"]), expected) for r in rows),
          "the fraction the plots use is against the fastest BLAS (%.4f), not the slow one's tenfold"
          % expected)


def check_default_out(tmp):
    """Without --out, the study goes to plots/ in the current folder, never to the tracked
    perf/plots/."""
    tracked = ROOT / "perf" / "plots" / "summary.csv"
    before = tracked.stat().st_mtime_ns if tracked.exists() else None
    here = tmp / "default-out"
    here.mkdir()
    run = plot_run([CLI_FILES[0]], cwd=here)
    after = tracked.stat().st_mtime_ns if tracked.exists() else None
    check(run.returncode == 0 and (here / "plots" / "summary.csv").exists() and before == after,
          "without --out the study goes to ./plots, and perf/plots/ is left alone")


def check_bad_inputs(tmp):
    """A CSV file, a missing file and an --out that is a file get messages, not tracebacks."""
    csv_file = DATA / "2026-11-25-h200-square-gpu-3f9c602.csv"
    run = plot_run([CLI_FILES[0], str(csv_file), str(tmp / "none.json"),
                    "--out", str(tmp / "bad-plots")])
    check(run.returncode == 1 and "a CSV file: give the --json file" in run.stderr
          and "none.json: skipped" in run.stderr and "Traceback" not in run.stderr
          and (tmp / "bad-plots" / "summary.csv").exists(),
          "a CSV and a missing file are named and left out, the rest is plotted, exit status 1")
    broken = tmp / "broken.json"
    broken.write_text('{"schema": "tilemm.results/9", "status": "complete", "results": [{"m": 1}]}')
    a_file = tmp / "a-file"
    a_file.write_text("")
    run = plot_run([str(broken), "--out", str(tmp / "broken-plots")])
    check(run.returncode == 1 and "without the key 'kernel'" in run.stderr and "Traceback" not in run.stderr,
          "a result file of another form is skipped with a message, not a traceback")
    with open(CLI_FILES[0]) as f:
        doc = json.load(f)
    doc["results"][0]["m"] = None
    null_m = tmp / "null-m.json"
    null_m.write_text(json.dumps(doc))
    run = plot_run([CLI_FILES[1], str(null_m), "--out", str(tmp / "null-plots")])
    check(run.returncode == 1 and "whose m is None" in run.stderr and "Traceback" not in run.stderr
          and (tmp / "null-plots" / "summary.csv").exists(),
          "a result whose m is null is named, its file left out, the rest plotted")
    run = plot_run([CLI_FILES[0], "--out", str(a_file / "sub")])
    check(run.returncode == 2 and "cannot make the folder" in run.stderr and "Traceback" not in run.stderr,
          "an --out folder that cannot be made is an option error (exit status 2)")
    run = plot_run([CLI_FILES[0], "--out", str(a_file)])
    check(run.returncode == 2 and "is not a folder" in run.stderr and "Traceback" not in run.stderr,
          "--out naming a file is refused with a message (exit status 2)")
