#!/usr/bin/env python3
"""Reads the output of `nvcc -Xptxas -v` and prints, per tilemm kernel, the registers, stack frame
and spills the compiler gave it: the first thing to read when a kernel is slower than predicted.

  perf/ptxas_report.py ptxas.log            (names demangled with c++filt when it is on the PATH)
"""
import re
import shutil
import subprocess
import sys

KERNEL = re.compile(r"(RegisterTiledGemm|TiledGemm)<Kokkos::(\w+), (\w+), Kokkos::(\w+)"
                    r"(?:, tilemm::kernels::RegisterTiledVariant<(\d+), (\d+), "
                    r"\(tilemm::kernels::Schedule\)(\d), tilemm::kernels::TileShape<(\d+), (\d+), (\d+)>, "
                    r"(true|false), (true|false), (true|false)> ?)?>")
SCHEDULES = {"0": "shared", "1": "pipelined", None: "-"}  # the values of enum class Schedule


def demangle(names):
    if not shutil.which("c++filt"):
        return names
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return out.stdout.splitlines()


def main(path):
    entries = []  # (mangled name, registers, properties line)
    current, properties = None, ""
    with open(path) as log:
        for line in log:
            m = re.search(r"Compiling entry function '(\S+)'", line)
            if m:
                current, properties = m.group(1), ""
            elif current and "bytes stack frame" in line:
                properties = line.strip()
            elif current and "Used" in line and "registers" in line:
                regs = re.search(r"Used (\d+) registers", line).group(1)
                smem = re.search(r"(\d+) bytes smem", line)
                entries.append((current, regs, properties, smem.group(1) if smem else "0"))
                current = None
    rows = set()
    for (mangled, regs, properties, smem), name in zip(entries, demangle([e[0] for e in entries])):
        k = KERNEL.search(name)
        if not k:
            continue
        kernel, space, scalar, layout, tm, tn, schedule, bm, bn, bk, ops_nn, whole_k, pairs = k.groups()
        if "::sum_splits(" in name:  # the pass that adds a split K's partials, one per kernel type
            rows.add(("sum_splits", space, scalar, layout, "-", "-", int(regs), properties, smem))
            continue
        tile = f"{tm}x{tn}" if tm else "-"
        if bm and bm != "0":  # a team tile compiled in: BMxBNxBK/TMxTN
            tile = f"{bm}x{bn}x{bk}/{tile}"
            if ops_nn == "true":  # compiled for op NN
                tile += " NN"
            if whole_k == "true":  # compiled for launches that do not split K
                tile += " K"
            if pairs == "true":  # shares read in pairs, 16 bytes a load
                tile += " P"
        rows.add((kernel, space, scalar, layout, tile, SCHEDULES[schedule], int(regs), properties,
                  smem))
    print(f"{'kernel':18} {'space':5} {'scalar':6} {'layout':11} {'tile':21} {'schedule':9} "
          f"{'regs':>4}  stack / spills")
    for r in sorted(rows):
        print(f"{r[0]:18} {r[1]:5} {r[2]:6} {r[3]:11} {r[4]:21} {r[5]:9} {r[6]:4}  {r[7]}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
