#!/usr/bin/env python3
"""Inputs read once: a spec and a .npy matrix given as named pipes, which can be read only once, run,
and the results record the SHA-256 of the bytes that were parsed. And inputs refused, with exit
status 2 and the reason, rather than a hang or a misleading message: a named pipe that no process
writes to (within InputStream::kPipeWaitSeconds, 5 s), a device, a spec that is a loop of symbolic
links.

  inputs_read_once.py TILEMM [tilemm options...]
"""
import errno
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading


def npy_bytes(rows, cols, values):
    """A float64 C-order .npy file as numpy writes it (NEP 1, version 1.0)."""
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() +
            struct.pack("<%dd" % len(values), *values))


def feed(path, data):
    """Writes `data` into the named pipe `path` once a reader opens it."""
    thread = threading.Thread(target=lambda: open(path, "wb").write(data), daemon=True)
    thread.start()
    return thread


def main():
    tilemm = sys.argv[1:]
    with tempfile.TemporaryDirectory() as folder:
        matrix = npy_bytes(5, 3, [0.25 * i - 1 for i in range(15)])
        spec = ("problems:\n  - name: piped\n    a: %s\n    n: 4\n    kernels: [naive, tiled]\n"
                "    repeats: 1\n    warmup: 0\n" % os.path.join(folder, "a.npy")).encode()
        for name in ("spec.yaml", "a.npy"):
            os.mkfifo(os.path.join(folder, name))
        writers = [feed(os.path.join(folder, "spec.yaml"), spec),
                   feed(os.path.join(folder, "a.npy"), matrix)]
        out = os.path.join(folder, "out.json")
        try:
            run = subprocess.run(tilemm + [os.path.join(folder, "spec.yaml"), "--json", out,
                                           "--quiet"], capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            sys.exit("FAIL: tilemm hangs on a spec or matrix given as a named pipe")
        print(run.stdout + run.stderr)
        if run.returncode != 0:
            sys.exit("FAIL: tilemm exited with %d" % run.returncode)
        for writer in writers:
            writer.join(5)
        with open(out) as f:
            inputs = {entry["file"]: entry["sha256"] for entry in json.load(f)["context"]["inputs"]}
        want = {os.path.join(folder, "spec.yaml"): hashlib.sha256(spec).hexdigest(),
                os.path.join(folder, "a.npy"): hashlib.sha256(matrix).hexdigest()}
        if inputs != want:
            sys.exit("FAIL: inputs recorded %r, expected %r" % (inputs, want))
    print("PASS: a piped spec and matrix ran, their SHA-256 recorded")
    refused(tilemm)


def expect_refusal(tilemm, spec, reason):
    """Runs tilemm on `spec` and expects exit status 2, with `reason` on stderr, within 60 s."""
    try:
        run = subprocess.run(tilemm + [spec, "--quiet"], capture_output=True, text=True,
                             timeout=60)
    except subprocess.TimeoutExpired:
        sys.exit("FAIL: tilemm hangs on %s" % spec)
    print(run.stderr)
    if run.returncode != 2 or reason not in run.stderr:
        sys.exit("FAIL: exit status %d, expected 2 with %r" % (run.returncode, reason))


def refused(tilemm):
    """Inputs that cannot be read, each refused by what it is."""
    with tempfile.TemporaryDirectory() as folder:
        path = lambda name: os.path.join(folder, name)  # noqa: E731
        os.mkfifo(path("silent.npy"))
        with open(path("spec.yaml"), "w") as f:
            f.write("problems:\n  - {name: p, a: silent.npy, n: 4, kernels: naive}\n"
                    "  - {name: q, a: /dev/zero, n: 4, kernels: naive}\n")
        expect_refusal(tilemm, path("spec.yaml"),
                       "silent.npy': it is a pipe that no process wrote to within 5 s")
        with open(path("spec.yaml"), "w") as f:
            f.write("problems:\n  - {name: q, a: /dev/zero, n: 4, kernels: naive}\n")
        expect_refusal(tilemm, path("spec.yaml"),
                       "'/dev/zero': it is not a regular file or a pipe (a device, a socket?)")
        os.symlink("loop-b.yaml", path("loop-a.yaml"))
        os.symlink("loop-a.yaml", path("loop-b.yaml"))
        expect_refusal(tilemm, path("loop-a.yaml"), "loop-a.yaml: " + os.strerror(errno.ELOOP))
    print("PASS: a silent pipe, a device and a loop of links refused")


if __name__ == "__main__":
    main()
