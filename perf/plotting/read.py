"""Reading result files: the tilemm CLI's --json files and tilemm-bench's Google Benchmark JSON,
told apart by their content, into one row per result."""
import hashlib
import json
import math
import re
import sys
from pathlib import Path

import numpy as np


VENDOR = "kokkos-kernels"
GPU_BACKENDS = {"cuda", "hip", "sycl", "openmptarget"}
BYTES_PER_VALUE = {"float": 4, "double": 8}
PRECISION_ALIASES = {"fp32": "float", "single": "float", "fp64": "double"}


# ---------------------------------------------------------------------------------------- reading

def platform_name(device, backend, concurrency):
    """The platform label of plots and tables. Host backends get their thread count because the
    same generic CPU name ("Intel(R) Xeon(R) Processor") can stand for very different machines."""
    if backend in GPU_BACKENDS or concurrency in (None, ""):
        return "%s (%s)" % (device, backend)
    threads = int(float(concurrency))
    return "%s (%s, %d thread%s)" % (device, backend, threads, "" if threads == 1 else "s")


def build_of(context):
    """What tells two builds apart in a result file's context: the commit, compiler and Kokkos."""
    def text(value):
        if isinstance(value, str) and value.startswith("["):  # tilemm-bench keeps lists as JSON text
            try:
                value = json.loads(value)
            except ValueError:
                pass
        return "+".join(map(str, value)) if isinstance(value, list) else str(value or "?")
    return ", ".join(text(context.get(key)) for key in
                     ("git_hash", "compiler", "kokkos_version", "kokkos_arch", "kokkos_backends"))


def vendor_library_of(context):
    """The library kokkos-kernels called, as the run recorded it (runs before 2026-11-25 did not):
    cuBLAS and its version, OpenBLAS's description of itself or BLIS and its version; for another
    BLAS its file, since that is all a run knows of it. A BLAS that keeps a thread count of its
    own (BLIS, a non-OpenMP OpenBLAS) says on how many threads it ran, since that count, not the
    backend's, is the baseline's."""
    blas = context.get("blas") or ""
    library = context.get("blas_library")
    if blas == "unidentified BLAS" and library:
        # A generic name (libblas.so.3) says nothing without its folder (blis-openmp, blas).
        parts = library.split("/")
        named = "/".join(parts[-2:]) if parts[-1].startswith("libblas.") else parts[-1]
        blas = "%s (%s)" % (blas, named)
    threads = context.get("blas_threads")
    if threads not in (None, ""):
        blas += " on %s thread%s" % (threads, "" if str(threads) == "1" else "s")
    return blas


def minimal_bytes(precision, m, n, k, beta_nonzero):
    """A and B read once, C written once, and read once more when beta != 0."""
    size = BYTES_PER_VALUE.get(precision, float("nan"))
    return size * (m * k + k * n + m * n * (2 if beta_nonzero else 1))


def verdict_of(error, tolerance):
    if error is None or tolerance is None:
        return "unknown"
    if not math.isfinite(error):  # NaN or Inf in C never passes, as in the CLI
        return "fail"
    return "pass" if error <= tolerance else "fail"


# The key of a result's raw timed-run times, in seconds, where a run records them.
RAW_TIMES = "times_s"


def clipped_spread(centre, stddev, fastest, slowest):
    """(fast, slow) times of centre -/+ stddev, kept within the runs' own range where it is known
    (a standard deviation of three runs can reach past the fastest of them, or below zero)."""
    fast, slow = centre - stddev, centre + stddev
    if fastest is not None:
        fast = max(fast, fastest)
    if slowest is not None:
        slow = min(slow, slowest)
    return fast, slow


def cli_spread(r):
    """(fast, slow, what) of a CLI result's timed runs: its median -/+ its standard deviation where
    the result has one (or its raw times to compute it from), else its fastest and slowest run."""
    median, stddev = number(r.get("time_median_s")), number(r.get("time_stddev_s"))
    fastest, slowest = number(r.get("time_min_s")), number(r.get("time_max_s"))
    times = r.get(RAW_TIMES)
    if stddev is None and isinstance(times, list) and len(times) > 1:
        stddev = float(np.std([float(t) for t in times], ddof=1))
    if median is not None and stddev is not None:
        return clipped_spread(median, stddev, fastest, slowest) + ("median -/+ stddev",)
    if fastest is None or slowest is None:
        return None, None, ""
    return fastest, slowest, "min..max"


def study_of(spec, source):
    """The study a result belongs to: its spec's name without folder and suffix, else its file's."""
    return Path(str(spec or source)).name.rsplit(".", 1)[0]


def read_cli(doc, source):
    """Rows of a tilemm CLI --json file."""
    context = doc.get("context", {})
    rows = []
    for r in doc.get("results", []):
        beta = r.get("beta") or 0.0
        fast, slow, spread = cli_spread(r)
        rows.append({
            "device": r.get("device") or context.get("device"),
            "backend": r.get("backend") or context.get("backend"),
            "concurrency": context.get("concurrency"),
            "kernel": r["kernel"], "precision": r["precision"], "layout": r["layout"],
            "trans": r["trans_a"] + r["trans_b"], "m": r["m"], "n": r["n"], "k": r["k"],
            "alpha": r.get("alpha"), "beta": beta, "beta_nonzero": beta != 0, "tile": r.get("tile"),
            "gflops": r.get("gflops"), "time_s": r.get("time_median_s"), "time_fast_s": fast,
            "time_slow_s": slow, "spread": spread, "study": study_of(r.get("spec"), source),
            "error": r.get("error"),
            "tolerance": r.get("tolerance"), "verdict": r.get("verdict"), "problem": r.get("name"),
            "note": "", "format": "tilemm-cli", "source": source,
            "hostname": r.get("hostname") or context.get("hostname"),
            "device_id": context.get("cuda_device_id"),
            "git_hash": context.get("git_hash"), "build": build_of(context),
            "vendor_library": vendor_library_of(context),
            # The GPU's median SM clock and board power over the timed runs, and the fraction of
            # them at its power cap (runs before 2026-11-25 did not record them).
            "sm_clock_mhz": r.get("gpu_sm_clock_mhz"), "power_w": r.get("gpu_power_w"),
            "power_capped": r.get("gpu_power_capped"),
            "date": context.get("utc_time") or r.get("utc_time"),
            # A distributed run's process grid and communicator (absent for one process).
            "ranks": r.get("ranks"), "grid": r.get("grid"), "comm": r.get("comm"),
            "distribution": r.get("distribution"), "comm_exposed": r.get("comm_exposed"),
            "gflops_per_rank": r.get("gflops_per_rank"),
        })
    return rows


TIME_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
AGGREGATES = ("_mean", "_median", "_stddev", "_cv")


def gbench_run_name(bench):
    """The benchmark's name without an aggregate suffix (older Google Benchmarks lack run_name)."""
    name = bench.get("run_name") or bench["name"]
    for suffix in AGGREGATES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def parse_gbench_name(name):
    """gemm/KERNEL/BACKEND/PRECISION/LAYOUT/TRANS/m:M/n:N/k:K[/manual_time][/repeats:R]..."""
    parts = name.split("/")
    if len(parts) < 9 or parts[0] != "gemm":
        return None
    fields = dict(zip(("kernel", "backend", "precision", "layout", "trans"), parts[1:6]))
    try:
        for part, key in zip(parts[6:9], "mnk"):
            label, _, value = part.partition(":")
            if label != key:
                return None
            fields[key] = int(value)
    except ValueError:
        return None
    return fields


def number(value):
    """A counter as a float; None when absent or not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def pick_gbench_run(runs):
    """The entry that stands for one benchmark: a failed run if any (Google Benchmark leaves failed
    repetitions out of its aggregates, which would hide them), else the median aggregate when
    repetitions made one, else the iteration runs, folded into their median (error: the largest)."""
    iterations = [b for b in runs if b.get("run_type", "iteration") == "iteration"]
    failed = [b for b in iterations if b.get("error_occurred")]
    if failed:
        return dict(failed[0]), ""
    medians = [b for b in runs if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
    if medians:
        return dict(medians[0]), "median of repetitions"
    good = iterations
    if not good:
        return None, ""
    if len(good) == 1:  # Google Benchmark's time of a run is the mean of its iterations
        return dict(good[0]), "mean of %s iterations" % good[0].get("iterations", "its")
    pick = dict(good[0])
    scale = TIME_UNIT.get(pick.get("time_unit", "ns"), 1e-9)
    pick["real_time"] = float(np.median([b["real_time"] * TIME_UNIT.get(b.get("time_unit", "ns"), 1e-9)
                                         for b in good])) / scale
    for key in ("FLOP/s", "bytes", "intensity", "tolerance"):
        values = [number(b.get(key)) for b in good if number(b.get(key)) is not None]
        if values:
            pick[key] = float(np.median(values))
    errors = [number(b.get("error")) for b in good if number(b.get("error")) is not None]
    if errors:
        pick["error"] = max(errors)
    return pick, "median of %d runs" % len(good)


def first_spec(context):
    """The first spec a tilemm-bench run read (--spec), from its context's list of inputs."""
    inputs = context.get("inputs") or []
    if isinstance(inputs, str):  # tilemm-bench keeps lists as JSON text
        try:
            inputs = json.loads(inputs)
        except ValueError:
            return None
    first = inputs[0] if isinstance(inputs, list) and inputs else {}
    return first.get("file") if isinstance(first, dict) else None


def seconds_of(bench):
    return bench["real_time"] * TIME_UNIT.get(bench.get("time_unit", "ns"), 1e-9)


def gbench_spread(runs, seconds):
    """(fast, slow, what) of one benchmark: its median -/+ the standard deviation of its
    repetitions where Google Benchmark wrote one, else the fastest and slowest of several runs."""
    times = [seconds_of(b) for b in runs
             if b.get("run_type", "iteration") == "iteration" and not b.get("error_occurred")]
    fastest, slowest = (min(times), max(times)) if len(times) > 1 else (None, None)
    stddev = [b for b in runs if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "stddev"]
    if stddev:
        return clipped_spread(seconds, seconds_of(stddev[0]), fastest, slowest) + ("median -/+ stddev",)
    if fastest is None:
        return None, None, ""
    return fastest, slowest, "min..max"


# tilemm-bench stops a benchmark whose result fails validation with this message (no counters then):
# the error against the reference, or Freivalds' error where that check failed.
VALIDATION_FAILED = re.compile(r"validation failed: (?:freivalds_)?error (\S+) > tolerance (\S+)")


def read_gbench(doc, source):
    """Rows of a Google Benchmark JSON file written by tilemm-bench."""
    context = doc.get("context", {})
    groups = {}
    for bench in doc.get("benchmarks", []):
        # One registered benchmark = one family instance: a tile sweep or problems that differ only
        # in alpha or beta share a name, never a family index. Aggregates keep their runs' indices.
        key = (gbench_run_name(bench), bench.get("family_index"), bench.get("per_family_instance_index"))
        groups.setdefault(key, []).append(bench)
    rows, skipped = [], []
    for (run_name, _, _), runs in groups.items():
        fields = parse_gbench_name(run_name)
        if fields is None:
            skipped.append(run_name)
            continue
        bench, note = pick_gbench_run(runs)
        if bench is None:
            continue
        m, n, k, precision = fields["m"], fields["n"], fields["k"], fields["precision"]
        plain = minimal_bytes(precision, m, n, k, False)
        traffic = number(bench.get("bytes"))
        # The name carries no beta: the byte counter tells whether C was read (beta != 0).
        beta_nonzero = traffic is not None and traffic > plain * 1.0001
        row = dict(fields, concurrency=context.get("concurrency"), alpha=None, beta=None,
                   beta_nonzero=beta_nonzero, tile=bench.get("label") or None, format="gbench",
                   source=source, device=context.get("device"),
                   backend=fields["backend"] or context.get("backend"),
                   hostname=context.get("hostname") or context.get("host_name"),
                   device_id=context.get("cuda_device_id"), git_hash=context.get("git_hash"), build=build_of(context),
                   vendor_library=vendor_library_of(context),
                   sm_clock_mhz=number(bench.get("gpu_sm_clock_mhz")),
                   power_w=number(bench.get("gpu_power_w")),
                   power_capped=number(bench.get("gpu_power_capped")),
                   date=context.get("utc_time") or context.get("date"),
                   problem=run_name, bytes=traffic, note=note, study=study_of(first_spec(context), source))
        if bench.get("error_occurred"):
            message = bench.get("error_message", "benchmark stopped with an error")
            failed = VALIDATION_FAILED.search(message)
            row.update(gflops=None, time_s=None, error=number(failed.group(1)) if failed else None,
                       tolerance=number(failed.group(2)) if failed else None,
                       verdict="fail" if failed else "error", note=message)
        else:
            seconds = seconds_of(bench)
            fast, slow, spread = gbench_spread(runs, seconds)
            rate = number(bench.get("FLOP/s"))
            if rate is None and seconds > 0:
                rate = 2.0 * m * n * k / seconds
            row.update(gflops=rate / 1e9 if rate is not None else None, time_s=seconds,
                       time_fast_s=fast, time_slow_s=slow, spread=spread,
                       error=number(bench.get("error")), tolerance=number(bench.get("tolerance")))
            row["verdict"] = verdict_of(row["error"], row["tolerance"])
        rows.append(row)
    if skipped:
        print("%s: %d benchmarks not named gemm/KERNEL/BACKEND/PRECISION/LAYOUT/OPS/m:M/n:N/k:K, "
              "ignored (e.g. %s)" % (source, len(skipped), skipped[0]), file=sys.stderr)
    return rows


def checked(rows):
    """The rows, once their extents and thread counts are numbers (else ValueError, naming one)."""
    for row in rows:
        for key in ("m", "n", "k"):
            if isinstance(row[key], bool) or not isinstance(row[key], int) or row[key] < 1:
                raise ValueError("a result whose %s is %r, not a whole number >= 1" % (key, row[key]))
        threads = row.get("concurrency")
        if threads not in (None, "") and number(threads) is None:
            raise ValueError("a context whose concurrency is %r, not a number" % (threads,))
    return rows


def read_file(path, data):
    """(rows, format) of one result file, `data` its bytes; raises ValueError with the reason it
    cannot be read."""
    if str(path).lower().endswith(".csv"):
        raise ValueError("a CSV file: give the --json file of the same run (the CSV has the results "
                         "but not the run's context: build, BLAS, threads)")
    try:
        doc = json.loads(data)  # Google Benchmark may write NaN: Python's json reads it
    except ValueError as error:
        raise ValueError("not JSON, or cut short: %s" % error)
    source = str(path)
    try:
        if isinstance(doc, dict) and str(doc.get("schema", "")).startswith("tilemm.results/"):
            if doc.get("status") != "complete":
                print("%s: status '%s': the file holds the results finished so far"
                      % (path, doc.get("status")), file=sys.stderr)
            return checked(read_cli(doc, source)), "tilemm-cli"
        if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list):
            rows = checked(read_gbench(doc, source))
            if not rows:
                raise ValueError("Google Benchmark JSON without tilemm-bench's gemm/... benchmarks")
            return rows, "gbench"
    except KeyError as error:
        raise ValueError("a result without the key %s (schema %r)" % (error, doc.get("schema")))
    except (TypeError, AttributeError) as error:
        raise ValueError("a result of unexpected form (%s)" % error)
    raise ValueError("neither a tilemm result file nor Google Benchmark JSON")


def load(paths):
    """All rows of all files, each file's format told by its content; a file named twice (or two
    copies of one file) is read once. Returns the rows, the count of files of each format and the
    files that could not be read (each named on stderr with the reason)."""
    rows, counts, skipped, seen = [], {"tilemm-cli": 0, "gbench": 0}, [], {}
    for path in paths:
        try:
            data = Path(path).read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen:
                print("%s: the same content as %s: read once" % (path, seen[digest]), file=sys.stderr)
                continue
            file_rows, kind = read_file(path, data)
        except OSError as error:
            reason = error.strerror or str(error)
        except ValueError as error:
            reason = str(error)
        else:
            seen[digest] = path
            rows += file_rows
            counts[kind] += 1
            continue
        print("%s: skipped: %s" % (path, reason), file=sys.stderr)
        skipped.append(path)
    return rows, counts, skipped
