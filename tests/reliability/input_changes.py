#!/usr/bin/env python3
"""A matrix file written in place while the run goes on (as numpy's `save` to its name does): the
next problem that reads it finds the change before it converts the file into its matrix, the run
ends with exit status 3, the JSON's status names the file, and the result finished before is kept.

  input_changes.py TILEMM [tilemm options...]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from inputs_read_once import npy_bytes  # noqa: E402
from run_case import check_results, fail  # noqa: E402

# The first problem warms up for 2 s whatever the CPU: the file is rewritten while it runs.
SPEC = """problems:
  - {name: first, m: 16, n: 16, k: 16, kernels: naive, repeats: 1, warmup: 0, warmup_s: 2}
  - {name: second, a: a.npy, n: 4, kernels: naive, repeats: 1, warmup: 0}
"""


def main():
    tilemm = sys.argv[1:]
    with tempfile.TemporaryDirectory() as folder:
        matrix = os.path.join(folder, "a.npy")
        with open(matrix, "wb") as f:
            f.write(npy_bytes(5, 3, [0.25 * i - 1 for i in range(15)]))
        spec = os.path.join(folder, "spec.yaml")
        with open(spec, "w") as f:
            f.write(SPEC)
        out, table = os.path.join(folder, "r.json"), os.path.join(folder, "r.csv")
        with open(os.path.join(folder, "stderr"), "w+") as err:
            run = subprocess.Popen(tilemm + [spec, "--json", out, "--csv", table],
                                   stdout=subprocess.PIPE, stderr=err, text=True)
            start = time.monotonic()
            while "[1/2]" not in open(err.name).read():
                if run.poll() is not None or time.monotonic() - start > 120:
                    run.kill()
                    fail("tilemm did not start its first problem")
                time.sleep(0.05)
            with open(matrix, "r+b") as f:  # the same size, other values, a newer time
                f.write(npy_bytes(5, 3, [0.5 * i for i in range(15)]))
            stdout, _ = run.communicate(timeout=120)
            stderr = open(err.name).read()
        print(stdout + stderr)
        if run.returncode != 3:
            fail("exit status %d, expected 3" % run.returncode)
        why = "a.npy' changed while the run read it"
        if why not in stderr:
            fail("stderr does not say that the file changed")
        doc = check_results(out, table, 1, "pass", None, None, "failed:")
        if why not in doc["status"] or doc["results"][0]["name"] != "first":
            fail("the JSON's status or results: %r" % json.dumps(doc["status"]))
    print("ok: the change was found, the first result kept")


if __name__ == "__main__":
    main()
