#!/usr/bin/env python3
"""A file-size limit (`ulimit -f`) reached while results are written is a full disk: the write fails,
tilemm exits with status 3 naming the file, the files keep every result written before (the JSON's
status says why, where the limit leaves room for it), and no temporary file is left behind.

  file_size_limit.py TILEMM SPEC BACKEND

SPEC runs once without a limit; then under a limit that the JSON passes at its fourth result, and
under one that its first bytes pass (no file then: neither is made).
"""
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from run_case import check_results, fail  # noqa: E402

RESULT_FILES = ["fsize.json", "fsize.csv"]


def run(command, limit):
    for path in RESULT_FILES:
        if os.path.exists(path):
            os.remove(path)

    def apply():
        if limit:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, preexec_fn=apply)
    print("$ %s  (file-size limit: %s bytes)\nexit status %d\n--- stderr\n%s"
          % (" ".join(command), limit, result.returncode, result.stderr))
    return result


def check_failed(result):
    """Exit status 3, the file and the reason named, and no temporary file beside the files."""
    if result.returncode != 3:
        fail("exit status %d, expected 3" % result.returncode)
    if "tilemm: runtime failure: cannot write 'fsize.json': File too large" not in result.stderr:
        fail("stderr does not name the file and the reason")
    left = [name for name in os.listdir(".") if name.startswith((".fsize.json.tmp.",
                                                                  ".fsize.csv.tmp."))]
    if left:
        fail("temporary files left behind: %r" % left)


def main():
    tilemm, spec, backend = sys.argv[1:4]
    command = [tilemm, spec, "--backend", backend, "--json", RESULT_FILES[0], "--csv",
               RESULT_FILES[1], "--quiet"]
    if run(command, None).returncode != 0:
        fail("the run without a limit failed")
    with open(RESULT_FILES[0], "rb") as f:
        text = f.read()
    # The limit: the file up to its third result, its closing bytes, and room for a few bytes more
    # in the times of the run under the limit and for the status that says why it failed; a
    # result's row is some 900 bytes.
    third_row_ends = text.index(b"\n", text.index(b'"results": [') + 13)
    for _ in range(2):
        third_row_ends = text.index(b"\n", third_row_ends + 1)
    limit = third_row_ends + len(b'\n  ],\n  "status": "running"\n}\n') + 200
    result = run(command, limit)
    check_failed(result)
    doc = check_results(RESULT_FILES[0], RESULT_FILES[1], 3, "pass", backend, None, "failed:")
    if doc["status"] != "failed: cannot write 'fsize.json': File too large":
        fail("the JSON's status is %r" % doc["status"])
    result = run(command, 1024)
    check_failed(result)
    for path in RESULT_FILES:
        if os.path.exists(path):
            fail("%s was made" % path)
    print("ok")


if __name__ == "__main__":
    main()
