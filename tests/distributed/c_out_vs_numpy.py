#!/usr/bin/env python3
"""Runs one distributed product per case under mpiexec and checks the whole C that rank 0 wrote
(c_out) of every kernel against the product of the same matrices in long double, which numpy
computes with loops of its own, sharing no BLAS with Kokkos Kernels. The matrices are made by
tilemm's value-by-position rule, or read by every rank from .npy files (cases marked "files":
float64 files, so double only).

  c_out_vs_numpy.py --ranks 4 -- mpiexec --oversubscribe tilemm
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

MASK = (1 << 64) - 1
# Each case: a grid of the ranks, extents that no block (8) and no panel (5) divide, an op and a
# layout; every kernel and both precisions run on each.
CASES = [("2x2", 37, 29, 41, "N", "T", "right", ""), ("1x4", 23, 35, 19, "T", "N", "left", ""),
         ("4x1", 33, 17, 27, "T", "T", "right", ""), ("2x1", 21, 26, 30, "N", "N", "left", ""),
         ("2x2", 19, 34, 23, "T", "N", "left", "files"), ("2x1", 27, 18, 22, "N", "T", "right",
                                                          "files")]
SEED, ALPHA, BETA = 11, 0.75, -0.5
KERNELS = ["naive", "tiled", "register-tiled", "tensor-tiled", "kokkos-kernels"]


def uniform(seed, matrix_id, rows, cols):
    """matrices.hpp's uniform_value for every element of a rows x cols matrix (SplitMix64)."""
    index = np.arange(rows * cols, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64((seed ^ (matrix_id << 56)) & MASK) + (index + np.uint64(1)) * np.uint64(
            0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return ((z >> np.uint64(11)).astype(np.float64) * 2.0**-52 - 1.0).reshape(rows, cols)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- mpiexec ... tilemm")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for grid, m, n, k, ta, tb, layout, files in CASES:
            rows, cols = map(int, grid.split("x"))
            if rows * cols != args.ranks:
                continue
            a = uniform(SEED, 1, k, m) if ta == "T" else uniform(SEED, 1, m, k)
            b = uniform(SEED, 2, n, k) if tb == "T" else uniform(SEED, 2, k, n)
            c0 = uniform(SEED, 3, m, n)
            precisions = "[double, float]"
            inputs = ""
            if files:  # other values than the rule's, in C and Fortran order
                rng = np.random.default_rng(5)
                a, b, c0 = (rng.uniform(-1, 1, x.shape) for x in (a, b, c0))
                np.save(os.path.join(work, "a.npy"), a)
                np.save(os.path.join(work, "b.npy"), np.asfortranarray(b))
                np.save(os.path.join(work, "c.npy"), c0)
                precisions = "double"
                inputs = "".join(f"\n    {x}: {work}/{x}.npy" for x in "abc")
            spec = os.path.join(work, "spec.yaml")
            with open(spec, "w") as f:
                f.write(f"""problems:
  - name: c-out
    m: {m}
    n: {n}
    k: {k}
    trans_a: {ta}
    trans_b: {tb}
    layout: {layout}
    precision: {precisions}
    alpha: {ALPHA}
    beta: {BETA}
    seed: {SEED}
    repeats: 1
    warmup: 0
    grid: {grid}
    block: 8
    panel: 5
    c_out: "{work}/c-{{kernel}}-{{precision}}.npy"{inputs}
""")
            done = subprocess.run(command[:1] + ["-n", str(args.ranks)] + command[1:] +
                                  [spec, "--quiet"], capture_output=True, text=True)
            if done.returncode != 0:
                print(done.stdout + done.stderr)
                print(f"FAIL: grid {grid}: exit status {done.returncode}")
                failures += 1
                continue
            for precision, dtype, eps in [("double", np.float64, 2.0**-52),
                                          ("float", np.float32, 2.0**-23)][:1 if files else 2]:
                opa = (a.T if ta == "T" else a).astype(dtype).astype(np.longdouble)
                opb = (b.T if tb == "T" else b).astype(dtype).astype(np.longdouble)
                c0p = c0.astype(dtype).astype(np.longdouble)
                want = ALPHA * np.matmul(opa, opb) + BETA * c0p
                bound = (k + 2) * eps * (abs(ALPHA) * np.outer(np.sqrt(np.sum(opa**2, axis=1)),
                                                               np.sqrt(np.sum(opb**2, axis=0))) +
                                         abs(BETA) * np.abs(c0p))
                for kernel in KERNELS:
                    got = np.load(os.path.join(work, f"c-{kernel}-{precision}.npy"))
                    if got.shape != (m, n) or not np.all(np.abs(got - want) <= bound):
                        print(f"FAIL: grid {grid} {precision} {kernel} {files}: C differs from "
                              "the long double product")
                        failures += 1
                    else:
                        print(f"ok: grid {grid} {precision} {kernel} {files}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
