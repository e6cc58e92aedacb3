#!/usr/bin/env python3
r"""Runs the tilemm CLI once and checks what a batch script relies on: the exit status, the messages,
and the JSON and CSV result files (schema, rows, context).

  run_case.py --exit 2 --stderr-has "key 'm'" -- tilemm spec.yaml
  run_case.py --exit 0 --results out.json out.csv --rows 6 -- tilemm spec.yaml --json out.json ...
  run_case.py --exit 3 --limit-as 1073741824 --stderr-regex "; \d{1,9} bytes" -- tilemm big.yaml
  run_case.py --exit 2 --env OMP_NUM_THREADS=600 --stderr-has 512 -- tilemm spec.yaml
  run_case.py --exit 0 --results out.json out.csv --context "blas_core=Zen" -- tilemm ...
  run_case.py --exit 0 --results out.json out.csv --preload libblis.so.4 --context "blas=BLIS *" ...
  run_case.py --exit 0 --unset OMP_PROC_BIND --stdout-starts-with "name " -- tilemm spec.yaml
  run_case.py --exit 0 --env 'MKL_NUM_THREADS=\xff' --results out.json out.csv -- tilemm ...
"""
import argparse
import csv
import fnmatch
import json
import os
import re
import resource
import subprocess
import sys

CONTRACT = ["name", "kernel", "backend", "m", "n", "k", "precision", "layout", "trans_a",
            "trans_b", "alpha", "beta", "tile", "time_min_s", "time_median_s", "time_max_s",
            "gflops", "error", "verdict", "time_stddev_s", "noisy", "threads", "kokkos_version",
            "git_hash"]
JSON_ONLY = ["times_s"]  # result keys the CSV has no column for
# Exit statuses that only a crash gives: abort, segmentation fault, and the status the sanitizer
# test preset (CMakePresets.json, "asan") gives a sanitizer report.
CRASHES = {134: "abort", 139: "segmentation fault", 86: "a sanitizer report"}
SKIPPED = 77  # the tests' SKIP_RETURN_CODE
CONTEXT = ["tilemm_version", "git_hash", "kokkos_version", "kokkos_kernels_version",
           "kokkos_backends", "backend", "concurrency", "device", "compiler", "environment",
           "utc_time", "hostname", "inputs", "host_threads", "cpu_affinity",
           "kokkos_configuration"]


def context_matches(context, condition):
    """KEY=PATTERN: the context's KEY matches PATTERN (shell-style; alternatives split by |). A KEY
    such as environment.OMP_PLACES names a key inside one."""
    key, patterns = condition.split("=", 1)
    while "." in key:
        part, key = key.split(".", 1)
        context = context.get(part, {})
    return key in context and any(fnmatch.fnmatchcase(str(context[key]), pattern)
                                  for pattern in patterns.split("|"))


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check_results(json_path, csv_path, rows, verdict, backend, concurrency, status="complete"):
    """Checks both result files and returns the JSON document."""
    with open(json_path) as f:
        doc = json.load(f)
    if doc.get("schema") != "tilemm.results/1":
        fail("schema is %r" % doc.get("schema"))
    matches = doc.get("status", "").startswith(status) if status.endswith(":") else \
        doc.get("status") == status
    if not matches:
        fail("status is %r, expected %r" % (doc.get("status"), status))
    context = doc["context"]
    for key in CONTEXT:
        if key not in context:
            fail("context lacks %r" % key)
    for entry in context["inputs"]:
        if len(entry.get("sha256", "")) != 64:
            fail("input %r has no sha256" % entry)
    if "OMP_PROC_BIND" not in context["environment"]:
        fail("environment lacks OMP_PROC_BIND")
    if backend and context["backend"] != backend:
        fail("context backend %r, expected %r" % (context["backend"], backend))
    if concurrency and context["concurrency"] != concurrency:
        fail("concurrency %r, expected %r" % (context["concurrency"], concurrency))
    results = doc["results"]
    # Each row's utc_time is when its result was done: not before the run began, in run order.
    times = [context["utc_time"]] + [row.get("utc_time", "") for row in results]
    if times != sorted(times):
        fail("row times out of order, or before the run's %r: %r" % (context["utc_time"], times[1:]))
    if rows is not None and len(results) != rows:
        fail("%d result rows, expected %d" % (len(results), rows))
    for row in results:
        for key in CONTRACT:
            if key not in row:
                fail("row lacks %r: %r" % (key, row))
        if verdict and row["verdict"] != verdict:
            fail("row verdict %r, expected %r: %r" % (row["verdict"], verdict, row))
        # A reference that failed Freivalds' check (a wrong vendor BLAS) cannot fail a kernel.
        checked = row["error"] <= row["tolerance"] or not row["reference_valid"]
        if row["verdict"] == "pass" and not (checked and
                                             row["freivalds_error"] <= row["tolerance"]):
            fail("passing row with error above tolerance: %r" % row)
        if row["verdict"] == "pass" and not (row["gflops"] > 0 and row["time_min_s"] > 0):
            fail("passing row without a time: %r" % row)
        if not row["time_min_s"] <= row["time_median_s"] <= row["time_max_s"]:
            fail("times out of order: %r" % row)
        if len(row["times_s"]) != row["repeats"] or min(row["times_s"]) != row["time_min_s"]:
            fail("times_s is not the timed runs: %r" % row)
        if not (row["time_stddev_s"] >= 0 and isinstance(row["noisy"], bool)):
            fail("no spread: %r" % row)
    if csv_path:
        with open(csv_path, newline="") as f:
            table = list(csv.DictReader(f))
        if len(table) != len(results):
            fail("CSV has %d rows, JSON %d" % (len(table), len(results)))
        if table and list(table[0].keys()) != [k for k in results[0] if k not in JSON_ONLY]:
            fail("CSV columns differ from the JSON row keys")
        for c, j in zip(table, results):
            if c["kernel"] != j["kernel"] or int(c["m"]) != j["m"] or c["verdict"] != j["verdict"]:
                fail("CSV row %r differs from JSON row %r" % (c, j))
    return doc


def limits(args):
    """A preexec_fn that sets the child's RLIMIT_AS, RLIMIT_DATA and RLIMIT_STACK (ulimit -v, -d,
    -s) and closes the descriptors of --close (a job script's `>&-`)."""
    settings = [(resource.RLIMIT_AS, args.limit_as), (resource.RLIMIT_DATA, args.limit_data),
                (resource.RLIMIT_STACK, args.limit_stack)]
    if not any(value for _, value in settings) and not args.close:
        return None

    def apply():
        for which, value in settings:
            if value:
                resource.setrlimit(which, (value, value))
        for fd in args.close:
            os.close(fd)
    return apply


def parse_args():
    """The parser and the arguments: the checks to make, then the command after '--'."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int, required=True, help="expected exit status")
    parser.add_argument("--stderr-has", action="append", default=[])
    parser.add_argument("--stderr-lacks", action="append", default=[])
    parser.add_argument("--stderr-regex", action="append", default=[],
                        help="a Python regular expression that must match somewhere in stderr")
    parser.add_argument("--stdout-has", action="append", default=[])
    parser.add_argument("--stdout-regex", action="append", default=[],
                        help="a Python regular expression that must match somewhere in stdout")
    parser.add_argument("--stdout-starts-with", metavar="TEXT")
    parser.add_argument("--stdout-empty", action="store_true",
                        help="nothing may be printed on stdout (no result computed)")
    parser.add_argument("--stdout-to", metavar="FILE",
                        help="the command's stdout goes to this regular file (a batch job's log), "
                             "read back as its stdout")
    parser.add_argument("--stdout-json-rows", type=int, metavar="N",
                        help="stdout holds a complete results JSON of N rows")
    parser.add_argument("--stdout-csv-rows", type=int, metavar="N",
                        help="stdout holds a results CSV of N rows")
    parser.add_argument("--absent", action="append", default=[],
                        help="a file that must not exist afterwards")
    parser.add_argument("--present", action="append", default=[],
                        help="a file that must exist afterwards")
    parser.add_argument("--results", nargs=2, metavar=("JSON", "CSV"))
    parser.add_argument("--rows", type=int)
    parser.add_argument("--verdict")
    parser.add_argument("--kernel-verdict", action="append", default=[], metavar="KERNEL=VERDICT",
                        help="every result row of KERNEL has VERDICT (with --results)")
    parser.add_argument("--backend")
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--status", default="complete",
                        help="expected status of the result files; one that ends in ':' is a "
                             "prefix (\"failed:\" matches \"failed: <why>\")")
    parser.add_argument("--limit-as", type=int, metavar="BYTES",
                        help="run under this address-space limit (ulimit -v)")
    parser.add_argument("--limit-data", type=int, metavar="BYTES",
                        help="run under this data-segment limit (ulimit -d)")
    parser.add_argument("--limit-stack", type=int, metavar="BYTES",
                        help="run under this stack limit (ulimit -s)")
    parser.add_argument("--close", action="append", type=int, default=[], metavar="FD",
                        help="close this descriptor of the command (0, 1 or 2: `>&-`)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="set this variable in the command's environment; \\xNN in VALUE is "
                             "the byte NN")
    parser.add_argument("--unset", action="append", default=[], metavar="NAME",
                        help="remove this variable from the command's environment")
    parser.add_argument("--preload", metavar="LIBRARY",
                        help="load this shared library before the program's own (LD_PRELOAD)")
    parser.add_argument("--not-null", action="append", default=[], metavar="KERNEL:COLUMN",
                        help="every result row of KERNEL has a value in COLUMN (with --results)")
    parser.add_argument("--at-least", action="append", default=[], metavar="COLUMN=VALUE",
                        help="every result row's COLUMN is at least VALUE (with --results)")
    parser.add_argument("--within-tolerance", action="append", default=[], metavar="COLUMN",
                        help="every result row's COLUMN (an error) is at most its tolerance")
    parser.add_argument("--field", action="append", default=[],
                        metavar="[COLUMN=VALUE:]KEY=PATTERN",
                        help="every result row's KEY (of the rows whose COLUMN is VALUE) matches "
                             "PATTERN (shell-style, alternatives split by |; null is 'None')")
    parser.add_argument("--context", action="append", default=[], metavar="KEY=PATTERN",
                        help="the JSON context's KEY matches PATTERN (shell-style: * and ?; "
                             "alternatives split by |)")
    parser.add_argument("--skip-unless-context", action="append", default=[],
                        metavar="KEY=PATTERN",
                        help="exit with SKIPPED (77) unless the context matches, as --context")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.skip_unless_context and not args.results:
        parser.error("--skip-unless-context reads the context of --results")
    return parser, args


def command_environment(parser, args):
    """The command's environment: this one with --env, --unset and --preload applied."""
    env = dict(os.environ)
    for setting in args.env:
        if "=" not in setting:
            parser.error("--env takes NAME=VALUE, got %r" % setting)
        name, value = setting.split("=", 1)
        # A byte that is not text reaches the command as itself (os.fsencode's surrogateescape).
        env[name] = re.sub(r"\\x([0-9a-fA-F]{2})",
                           lambda m: bytes([int(m.group(1), 16)]).decode(errors="surrogateescape"),
                           value)
    for name in args.unset:
        env.pop(name, None)
    if args.preload:
        env["LD_PRELOAD"] = args.preload
        # An ASan build (the asan preset) refuses to start when a preloaded library comes before
        # its runtime. The check guards the order in which malloc and the like are found: a BLAS
        # calls them but does not define them, so ASan's interceptors still come first.
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                                     "verify_asan_link_order=0"]))
    return env


def run_command(command, args, env):
    """Runs the command under the limits asked for, its stdout to --stdout-to where given."""
    if args.stdout_to:
        with open(args.stdout_to, "w+") as log:
            run = subprocess.run(command, stdout=log, stderr=subprocess.PIPE, text=True,
                                 timeout=600, env=env, preexec_fn=limits(args))
        with open(args.stdout_to) as log:
            run.stdout = log.read()
    else:
        run = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env,
                             preexec_fn=limits(args))
    return run


def check_streams(args, run):
    """The checks of the command's stdout and stderr, and of the files it must not leave."""
    for text in args.stderr_has:
        if text not in run.stderr:
            fail("stderr lacks %r" % text)
    for text in args.stderr_lacks:
        if text in run.stderr:
            fail("stderr has %r" % text)
    for pattern in args.stderr_regex:
        if not re.search(pattern, run.stderr):
            fail("stderr does not match %r" % pattern)
    for text in args.stdout_has:
        if text not in run.stdout:
            fail("stdout lacks %r" % text)
    for pattern in args.stdout_regex:
        if not re.search(pattern, run.stdout):
            fail("stdout does not match %r" % pattern)
    if args.stdout_starts_with is not None and not run.stdout.startswith(args.stdout_starts_with):
        fail("stdout does not start with %r" % args.stdout_starts_with)
    if args.stdout_empty and run.stdout:
        fail("stdout is not empty")
    for path in args.absent:
        if os.path.exists(path):
            fail("%s exists" % path)
    for path in args.present:
        if not os.path.exists(path):
            fail("%s does not exist" % path)
    if args.stdout_json_rows is not None:
        doc = json.loads(run.stdout)
        if doc.get("status") != "complete" or len(doc["results"]) != args.stdout_json_rows:
            fail("stdout's JSON: status %r, %d rows, expected complete, %d"
                 % (doc.get("status"), len(doc["results"]), args.stdout_json_rows))
    if args.stdout_csv_rows is not None:
        rows = list(csv.DictReader(run.stdout.splitlines()))
        if len(rows) != args.stdout_csv_rows or "verdict" not in rows[0]:
            fail("stdout's CSV: %d rows, expected %d" % (len(rows), args.stdout_csv_rows))


def check_result_files(args):
    """The checks of --results: both files, then each row's verdict and columns, and the context."""
    doc = check_results(args.results[0], args.results[1], args.rows, args.verdict,
                        args.backend, args.concurrency, args.status)
    for expected in args.kernel_verdict:
        kernel, verdict = expected.split("=", 1)
        for row in doc["results"]:
            if row["kernel"] == kernel and row["verdict"] != verdict:
                fail("%s's verdict is %r, expected %r: %r" % (kernel, row["verdict"], verdict, row))
    for expected in args.not_null:
        kernel, column = expected.split(":", 1)
        for row in doc["results"]:
            if row["kernel"] == kernel and row.get(column) is None:
                fail("%s's %s is null: %r" % (kernel, column, row))
    for bound in args.at_least:
        column, value = bound.split("=", 1)
        for row in doc["results"]:
            if not row[column] >= float(value):
                fail("%s is %r, expected at least %s: %r" % (column, row[column], value, row))
    for column in args.within_tolerance:
        for row in doc["results"]:
            if not (row[column] is not None and row[column] <= row["tolerance"]):
                fail("%s is %r, above the tolerance %r: %r" % (column, row[column],
                                                               row["tolerance"], row))
    for condition in args.field:
        where, _, condition = condition.rpartition(":")
        rows = [row for row in doc["results"]
                if not where or str(row[where.split("=", 1)[0]]) == where.split("=", 1)[1]]
        if not rows:
            fail("no result row where %s" % where)
        for row in rows:
            if not context_matches(row, condition):
                fail("%s is %r, expected %r: %r" % (condition.split("=", 1)[0],
                                                    row.get(condition.split("=", 1)[0]), condition,
                                                    row))
    context = doc["context"]
    for condition in args.context:
        if not context_matches(context, condition):
            key = condition.split("=", 1)[0]
            fail("context %s is %r, expected %r" % (key, context.get(key), condition))


def main():
    parser, args = parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    for path in args.absent + args.present + (list(args.results) if args.results else []):
        if os.path.exists(path):
            os.remove(path)
    run = run_command(command, args, command_environment(parser, args))
    print("$ " + " ".join(command))
    print("exit status:", run.returncode)
    print("--- stdout\n" + run.stdout + "--- stderr\n" + run.stderr)
    if run.returncode != args.exit and (run.returncode < 0 or run.returncode in CRASHES):
        fail("tilemm crashed (status %d: %s), expected exit status %d"
             % (run.returncode, CRASHES.get(run.returncode, "killed by a signal"), args.exit))
    if run.returncode != args.exit:
        fail("exit status %d, expected %d" % (run.returncode, args.exit))
    if args.skip_unless_context:  # before any other check: they assume the condition
        with open(args.results[0]) as f:
            context = json.load(f).get("context", {})
        for condition in args.skip_unless_context:
            if not context_matches(context, condition):
                print("skipped: the context does not match %r" % condition)
                sys.exit(SKIPPED)
    check_streams(args, run)
    if args.results:
        check_result_files(args)
    print("ok")


if __name__ == "__main__":
    main()
