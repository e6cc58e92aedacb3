#!/usr/bin/env python3
"""Two runs given one results file (a job array's usual slip): the second is refused while the first
runs, and the first's file keeps every result.

  output_lock.py TILEMM LONG_SPEC SHORT_SPEC BACKEND

A run of LONG_SPEC (a result, then a long one) writes r.json and r.csv; once it has a result, a run of SHORT_SPEC given the same
--json is refused (exit status 2, "--json: 'r.json' is being written by another run"), and so is
one given the same --csv; then the first is stopped with SIGTERM, and its files must hold every
result it finished, with the status "interrupted".
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
sys.path.insert(0, HERE)
from interrupt import rows_in  # noqa: E402
from run_case import check_results, fail  # noqa: E402


def refused(command, option, path):
    """Runs the second tilemm and checks that it is refused, naming the option and the file."""
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    print("$ %s\nexit status %d\n--- stdout\n%s--- stderr\n%s"
          % (" ".join(command), run.returncode, run.stdout, run.stderr))
    expected = "tilemm: error: %s: '%s' is being written by another run" % (option, path)
    if run.returncode != 2 or expected not in run.stderr or run.stdout:
        fail("the second run was not refused (exit status 2, %r, nothing on stdout)" % expected)


def main():
    tilemm, long_spec, short_spec, backend = sys.argv[1:5]
    for path in ["r.json", "r.csv", "other.json", "other.csv"]:
        if os.path.exists(path):
            os.remove(path)
    err = tempfile.TemporaryFile("w+")
    first = subprocess.Popen([tilemm, long_spec, "--backend", backend, "--json", "r.json",
                              "--csv", "r.csv", "--quiet"], stdout=subprocess.DEVNULL, stderr=err)
    try:
        check(first, err, tilemm, short_spec, backend)
    finally:
        if first.poll() is None:
            first.kill()


def check(first, err, tilemm, short_spec, backend):
    """The second runs and the first one's files, while the first runs."""
    start = time.monotonic()
    while rows_in("r.json") < 1:
        if first.poll() is not None or time.monotonic() - start > 300:
            err.seek(0)
            fail("the first run wrote no result (exit status %s):\n%s"
                 % (first.returncode, err.read()))
        time.sleep(0.01)
    short = [tilemm, short_spec, "--backend", backend, "--quiet"]
    refused(short + ["--json", "r.json", "--csv", "other.csv"], "--json", "r.json")
    if os.path.exists("other.csv"):
        fail("the refused run wrote other.csv")
    # Refused on its second file: its first is made, then finished as failed.
    refused(short + ["--json", "other.json", "--csv", "r.csv"], "--csv", "r.csv")
    with open("other.json") as f:
        status = json.load(f)["status"]
    if not status.startswith("failed: --csv: 'r.csv' is being written by another run"):
        fail("other.json's status is %r" % status)
    if first.poll() is not None:
        fail("the first run ended (exit status %d) before it was stopped" % first.returncode)
    rows_before = rows_in("r.json")
    first.send_signal(signal.SIGTERM)
    if first.wait(timeout=120) != 128 + signal.SIGTERM:
        fail("the first run's exit status is %d, expected %d"
             % (first.returncode, 128 + signal.SIGTERM))
    doc = check_results("r.json", "r.csv", None, "pass", backend, None, "interrupted")
    if len(doc["results"]) < rows_before:
        fail("the first run's file lost results: %d, %d before"
             % (len(doc["results"]), rows_before))
    print("ok: the second runs were refused; the first kept %d result(s)" % len(doc["results"]))


if __name__ == "__main__":
    main()
