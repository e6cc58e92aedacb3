#!/usr/bin/env python3
"""Prints the scheduling controls that the compiler set on each instruction of one kernel, read from
`cuobjdump -sass` output (plain or gzipped), and a summary of the stall counts per opcode.

  cuobjdump -sass build-cuda/src/tilemm > tilemm.sass
  perf/sass_control.py tilemm.sass 'RegisterTiledGemmINS_4CudaEdNS_11LayoutRight'   # name substring
  perf/sass_control.py tilemm.sass NAME --summary                                   # summary only

For Volta and later (Hopper included) each 128-bit instruction carries its controls in the high
bits of its second 64-bit word, as reverse-engineered by the maxas/turingas projects (NVIDIA does
not document them): stall cycles (bits 41-44: the warp issues nothing else for that many cycles),
yield (45), write and read scoreboards set (46-48, 49-51; 7 = none), scoreboards waited on
(52-57) and operand reuse flags (58-61). A DFMA with stall 2 lets one warp issue a DFMA every
second cycle, which is what the FP64 pipe of a Hopper scheduler (16 lanes) takes.
"""
import collections
import gzip
import re
import sys

INSTRUCTION = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]+) \*/")
SECOND_WORD = re.compile(r"/\* (0x[0-9a-f]+) \*/")


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read().splitlines()


def kernel_instructions(lines, name_part):
    """(address, text, controls) of each instruction of the first function whose name contains
    name_part."""
    found, out = False, []
    for i, line in enumerate(lines):
        if "Function :" in line:
            if found:
                break
            found = name_part in line
            continue
        m = INSTRUCTION.match(line) if found else None
        if m and i + 1 < len(lines):
            word = SECOND_WORD.search(lines[i + 1])
            if not word:
                continue
            hi = int(word.group(1), 16)
            controls = {
                "stall": (hi >> 41) & 0xF,
                "yield": (hi >> 45) & 1,
                "write_sb": (hi >> 46) & 7,
                "read_sb": (hi >> 49) & 7,
                "wait_mask": (hi >> 52) & 0x3F,
                "reuse": (hi >> 58) & 0xF,
            }
            out.append((m.group(1), m.group(2), controls))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip())
        return 2
    instructions = kernel_instructions(read(argv[1]), argv[2])
    if not instructions:
        print(f"no function whose name contains {argv[2]!r}", file=sys.stderr)
        return 1
    if "--summary" not in argv:
        for address, text, c in instructions:
            sb = lambda v: "-" if v == 7 else str(v)
            print(f"{address} S{c['stall']:02d} Y{c['yield']} W{sb(c['write_sb'])} "
                  f"R{sb(c['read_sb'])} M{c['wait_mask']:06b} U{c['reuse']:04b}  {text}")
    stalls = collections.defaultdict(collections.Counter)
    for _, text, c in instructions:
        opcode = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]
        stalls[opcode][c["stall"]] += 1
    print(f"# {len(instructions)} instructions; stall counts per opcode (stall: instructions)")
    for opcode, counter in sorted(stalls.items(), key=lambda kv: -sum(kv[1].values())):
        detail = ", ".join(f"{s}: {n}" for s, n in sorted(counter.items()))
        print(f"# {opcode:<12} {sum(counter.values()):5d}   {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
