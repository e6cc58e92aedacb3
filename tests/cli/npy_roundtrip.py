#!/usr/bin/env python3
"""End-to-end .npy round trip: numpy writes A, B and C (C and Fortran order, float32 and float64),
tilemm multiplies them and writes each kernel's C, numpy checks every element against
alpha * op(A) @ op(B) + beta * C in long double (numpy's own loops: no BLAS shared with Kokkos
Kernels).

  npy_roundtrip.py TILEMM [tilemm options...]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np


def case(folder, dtype, order, trans_a, trans_b, layout):
    rng = np.random.default_rng(11)
    m, n, k = 37, 23, 41
    a = rng.uniform(-1, 1, (k, m) if trans_a == "T" else (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (n, k) if trans_b == "T" else (k, n)).astype(dtype)
    c = rng.uniform(-1, 1, (m, n)).astype(dtype)
    for name, x in (("a", a), ("b", b), ("c", c)):
        np.save(os.path.join(folder, name + ".npy"), np.asarray(x, order=order))
    precision = "float" if dtype == np.float32 else "double"
    spec = os.path.join(folder, "spec.yaml")
    with open(spec, "w") as f:
        f.write("problems:\n  - name: roundtrip\n    a: a.npy\n    b: b.npy\n    c: c.npy\n"
                "    precision: %s\n    layout: %s\n    trans_a: %s\n    trans_b: %s\n"
                "    alpha: 0.75\n    beta: -1.25\n    repeats: 1\n    warmup: 0\n"
                "    c_out: out/{kernel}.npy\n" % (precision, layout, trans_a, trans_b))
    os.makedirs(os.path.join(folder, "out"), exist_ok=True)
    run = subprocess.run(sys.argv[1:] + [spec, "--quiet"], capture_output=True, text=True)
    print(run.stdout + run.stderr)
    if run.returncode != 0:
        sys.exit("FAIL: tilemm exited with %d" % run.returncode)
    op_a = a.T if trans_a == "T" else a
    op_b = b.T if trans_b == "T" else b
    op_a, op_b, c = (x.astype(np.longdouble) for x in (op_a, op_b, c))
    expected = 0.75 * np.matmul(op_a, op_b) - 1.25 * c
    bound = 0.75 * np.matmul(np.abs(op_a), np.abs(op_b)) + 1.25 * np.abs(c)
    eps = np.finfo(dtype).eps
    outputs = sorted(os.listdir(os.path.join(folder, "out")))
    if not outputs:
        sys.exit("FAIL: no c_out files written")
    for name in outputs:
        got = np.load(os.path.join(folder, "out", name))
        if got.dtype != dtype or got.shape != (m, n):
            sys.exit("FAIL: %s has dtype %s shape %s" % (name, got.dtype, got.shape))
        if got.flags.f_contiguous != (layout == "left") and m > 1 and n > 1:
            sys.exit("FAIL: %s order does not follow layout %s" % (name, layout))
        worst = np.max(np.abs(got - expected) / bound)
        print("%s %s %s op=%s%s: max scaled error %.3g (bound %.3g)"
              % (name, precision, layout, trans_a, trans_b, worst, (k + 2) * eps))
        if not worst <= (k + 2) * eps:
            sys.exit("FAIL: %s differs from numpy" % name)


def main():
    for dtype in (np.float32, np.float64):
        for order, layout in (("C", "right"), ("F", "left"), ("F", "right")):
            for trans_a, trans_b in (("N", "N"), ("T", "N"), ("N", "T"), ("T", "T")):
                with tempfile.TemporaryDirectory() as folder:
                    case(folder, dtype, order, trans_a, trans_b, layout)
    print("ok")


if __name__ == "__main__":
    main()
