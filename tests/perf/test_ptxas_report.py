#!/usr/bin/env python3
"""Runs perf/ptxas_report.py on a piece of recorded `nvcc -Xptxas -v` output (tests/perf/data/
ptxas-float-128x128x16.log: an sm_90 build's four float LayoutRight 128x128x16/8x8 register-tiled
kernels, one of their split-K sums and the float LayoutRight tiled kernel, named as the source
names them now) and checks the rows it prints. The names are demangled by c++filt: without it the
test is skipped (exit 77).

  python3 tests/perf/test_ptxas_report.py       exit 0: passed, 1: failed, 77: skipped
"""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "perf" / "ptxas_report.py"
FIXTURE = ROOT / "tests" / "perf" / "data" / "ptxas-float-128x128x16.log"


def main():
    if not shutil.which("c++filt"):
        print("skipped: no c++filt on the PATH")
        return 77
    out = subprocess.run([sys.executable, str(SCRIPT), str(FIXTURE)], capture_output=True,
                         text=True, check=True).stdout
    rows = [" ".join(line.split()) for line in out.splitlines()[1:]]
    spill = "64 bytes stack frame, 180 bytes spill stores, 184 bytes spill loads"
    none = "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
    expected = [
        # ops read at run time, split K possible: spills at its 128 registers
        f"RegisterTiledGemm Cuda float LayoutRight 128x128x16/8x8 pipelined 128 {spill}",
        # compiled for launches that do not split K: no spills
        f"RegisterTiledGemm Cuda float LayoutRight 128x128x16/8x8 K pipelined 128 {none}",
        f"RegisterTiledGemm Cuda float LayoutRight 128x128x16/8x8 NN pipelined 128 {none}",
        f"RegisterTiledGemm Cuda float LayoutRight 128x128x16/8x8 NN K pipelined 128 {none}",
        f"TiledGemm Cuda float LayoutRight - - 48 {none}",
        # the pass that adds a split K's partials, not a register-tiled kernel of its own
        f"sum_splits Cuda float LayoutRight - - 32 {none}",
    ]
    failures = 0
    for row in expected:
        ok = row in rows
        failures += not ok
        print("%s: %s" % ("ok  " if ok else "FAIL", row))
    if len(rows) != len(expected):
        failures += 1
        print("FAIL: %d rows, expected %d:\n%s" % (len(rows), len(expected), out))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
