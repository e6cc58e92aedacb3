#!/usr/bin/env python3
"""Runs perf/sass_control.py on a piece of `cuobjdump -sass` output (tests/perf/data/
sass-dfma-loop.sass: ten instructions of double 64x128x8/8x8's K loop, built for sm_90, and one
instruction of another function) and checks the controls it decodes.

The expected values were decoded by hand from the second 64-bit word of each instruction: for
DFMA R136 at 0x4070 the word is 0x080fe40000000088, so stall = (word >> 41) & 0xf = 2 and the reuse
flags (word >> 58) = 0b0010; for DFMA R116 at 0x4050, 0x002fc60000000098 gives stall 3, no yield
and a wait on scoreboard 1 (mask 0b000010).

  python3 tests/perf/test_sass_control.py       exit 0: passed, 1: failed
"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "perf" / "sass_control.py"
FIXTURE = ROOT / "tests" / "perf" / "data" / "sass-dfma-loop.sass"
FAILURES = []


def check(condition, what):
    print("%s: %s" % ("ok  " if condition else "FAIL", what))
    if not condition:
        FAILURES.append(what)


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True)


def main():
    out = run(FIXTURE, "RegisterTiledGemm")
    check(out.returncode == 0, "exit status 0 (%d: %s)" % (out.returncode, out.stderr.strip()))
    lines = out.stdout.splitlines()
    rows = {line.split()[0]: line for line in lines if not line.startswith("#")}
    check(len(rows) == 10, "10 instructions of the named function, none of the other (%d)" % len(rows))
    check(rows.get("4070", "").startswith("4070 S02 Y1 W- R- M000000 U0010  DFMA R136"),
          "DFMA R136: stall 2, yield, reuse 0010 (%r)" % rows.get("4070"))
    check(rows.get("4050", "").startswith("4050 S03 Y0 W- R- M000010 U0000  DFMA R116"),
          "DFMA R116: stall 3, no yield, waits on scoreboard 1 (%r)" % rows.get("4050"))
    check(rows.get("4000", "").startswith("4000 S04 Y1 W2 R- M000000"),
          "LDS.128 R60: stall 4, sets scoreboard 2 (%r)" % rows.get("4000"))
    check("# DFMA             4   2: 3, 3: 1" in lines, "DFMA summary: three of stall 2, one of 3")
    check("# LDS.128          6   1: 2, 4: 4" in lines, "LDS.128 summary: two of stall 1, four of 4")

    summary = run(FIXTURE, "RegisterTiledGemm", "--summary")
    check(summary.returncode == 0 and not any(
        line and not line.startswith("#") for line in summary.stdout.splitlines()),
          "--summary prints the summary alone")
    missing = run(FIXTURE, "NoSuchKernel")
    check(missing.returncode == 1 and "no function" in missing.stderr,
          "a name that matches no function: exit status 1 and a message")
    check(run().returncode == 2, "no arguments: usage, exit status 2")

    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
