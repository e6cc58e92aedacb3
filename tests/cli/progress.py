#!/usr/bin/env python3
"""What tilemm says on stderr while it runs and when it ends, as a user sees it: on a terminal (a
pseudo-terminal here) one line rewritten in place, never wider than the terminal, gone at the end;
in a pipe (a batch log) a line per finished kernel, with no control characters; in both the final
summary line (results, pass, fail, noisy, files written); with -q none of it.

  progress.py TILEMM SPECS_FOLDER [tilemm options...]
"""
import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import tempfile
import termios

SUMMARY = re.compile(r"^tilemm: 11 results: 11 pass, 0 fail, \d+ noisy; wrote (.+)$", re.M)
COLUMNS = 72  # the pseudo-terminal's width
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


def on_terminal(command, env):
    """(exit status, stdout, what the terminal got) of `command` with stderr on a pseudo-terminal
    COLUMNS wide."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the terminal's last writer has gone
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    stdout = proc.stdout.read().decode()
    return proc.wait(), stdout, b"".join(chunks).decode(errors="replace")


def check_terminal(tilemm, spec, options, env, tmp):
    json_path = os.path.join(tmp, "tty.json")
    status, stdout, seen = on_terminal([tilemm, spec, "--json", json_path] + options, env)
    print("--- terminal\n" + repr(seen))
    check(status == 0 and stdout.count("PASS") == 11, "on a terminal: exit 0, the table on stdout")
    check("\r" in seen and "\x1b[K" in seen, "the live line is rewritten in place")
    for text in ("problem 1/2, kernel 1/5 naive: ", "problem 2/2, kernel 6/6 kokkos-kernels: ",
                 "first run and check", " elapsed", " left"):
        check(text in seen, "the live line shows %r" % text)
    drawn = re.findall(r"\r([^\r\n\x1b]+)\x1b\[K", seen)  # each drawing of the live line
    check(drawn and max(len(line) for line in drawn) < COLUMNS,
          "the live line is never as wide as the terminal's %d columns" % COLUMNS)
    check(": pass, " not in seen, "no line per kernel on a terminal (the table shows them)")
    before_summary = seen[:seen.find("tilemm: 11 results")]
    check(before_summary.endswith("\r\x1b[K"), "the live line is cleared before the summary")
    found = SUMMARY.search(seen.replace("\r\x1b[K", "\n").replace("\r\n", "\n"))
    check(found is not None and found.group(1) == json_path,
          "the summary line names the results and the file written")


def check_pipe(tilemm, spec, options, env, tmp):
    json_path = os.path.join(tmp, "log.json")
    csv_path = os.path.join(tmp, "log.csv")
    run = subprocess.run([tilemm, spec, "--json", json_path, "--csv", csv_path] + options,
                         capture_output=True, text=True, env=env, timeout=600)
    print("--- pipe\n" + run.stderr)
    check(run.returncode == 0, "in a pipe: exit 0")
    check("\r" not in run.stderr and "\x1b" not in run.stderr, "no control characters in a log")
    lines = re.findall(r"^problem (\d)/2, kernel (\d)/[56] (\S+): pass(?: \(noisy\))?, [0-9.e+]+ "
                       r"GFLOP/s, [0-9.e+-]+ s; \d+:\d\d elapsed", run.stderr, re.M)
    check(len(lines) == 11, "a line per finished kernel (%d)" % len(lines))
    check(" left" in run.stderr.splitlines()[-2], "the lines after the first estimate the time left")
    check(run.stderr.count("[1/2] small-odd") == 1 and "[2/2] small-left" in run.stderr,
          "each problem's line as it starts")
    found = SUMMARY.search(run.stderr)
    check(found is not None and run.stderr.rstrip().endswith(
        "wrote %s, %s" % (json_path, csv_path)), "the summary line ends the log, naming both files")
    quiet = subprocess.run([tilemm, spec, "-q"] + options, capture_output=True, text=True, env=env,
                           timeout=600)
    check(quiet.returncode == 0 and "problem 1/2" not in quiet.stderr
          and "[1/2]" not in quiet.stderr and "results:" not in quiet.stderr,
          "-q: no progress and no summary")


def check_failure(tilemm, spec, env):
    """Every kernel errs through the test hook (workspace.hpp), so every result fails."""
    run = subprocess.run([tilemm, spec], capture_output=True, text=True,
                         env=dict(env, TILEMM_TEST_WRONG_FROM_RUN="1"), timeout=600)
    print("--- failure\n" + run.stderr)
    check(run.returncode == 1 and re.search(
        r"^tilemm: 11 results: 0 pass, 11 fail \(small-odd naive, small-odd tiled, small-odd "
        r"register-tiled, \.\.\.\), \d+ noisy; no result files \(--json, --csv\)$",
        run.stderr, re.M) is not None, "after a failure the summary names the first failed results")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tilemm, specs, options = sys.argv[1], sys.argv[2], sys.argv[3:]
    spec = os.path.join(specs, "small.yaml")
    env = dict(os.environ, OMP_PROC_BIND="false")
    with tempfile.TemporaryDirectory() as tmp:
        check_terminal(tilemm, spec, options, env, tmp)
        check_pipe(tilemm, spec, options, env, tmp)
    check_failure(tilemm, spec, env)
    print("\n%d checks failed" % len(FAILURES) if FAILURES else "\nall checks passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
