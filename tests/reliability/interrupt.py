#!/usr/bin/env python3
"""Signals a running tilemm and checks what a batch job is left with: the exit status, and result
files that are whole, hold every result finished before the signal, and say how the run ended.

  interrupt.py --signal TERM --after-results 1 --exit 143 --status interrupted \\
      --results r.json r.csv -- tilemm long_sweep.yaml --json r.json --csv r.csv
  interrupt.py --signal INT --twice --after-progress 1.5 --exit -2 --status running ...
  interrupt.py --signal TERM --to-rank 1 ... -- mpiexec -n 2 tilemm ...

--after-results N waits until the JSON file holds N results; --after-progress S waits S seconds
after the first progress line ("[1/"), which lands the signal inside a problem's setup or kernel
run. While it waits, the JSON file is read again and again: a file that does not parse for longer
than a write takes is a torn one, which the files' design must rule out (a read that meets a row's
write half done may see it in part). With --twice the second signal follows tilemm's note that it
heard the first, so that the two are never merged into one. When tilemm is killed (SIGKILL, or a
second signal) the CSV may lack the one result the JSON got just before. With --to-rank R the signal
goes to rank R of an Open MPI run alone (the launcher's descendant whose OMPI_COMM_WORLD_RANK is R),
not to the launcher.
"""
import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HEARD = "tilemm: signal received: stopping after the current kernel run"

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from run_case import check_results, fail  # noqa: E402


def rows_in(json_path):
    """Result rows in the JSON file so far; -1 when it does not exist yet."""
    for attempt in range(10):
        try:
            with open(json_path) as f:
                text = f.read()
        except FileNotFoundError:
            return -1
        try:
            return len(json.loads(text)["results"])
        except (ValueError, KeyError) as e:
            error = e
            time.sleep(0.01)
    fail("%s is not a whole result file while tilemm runs (%s):\n%s" % (json_path, error, text))


def parse_args():
    """The signal, when to send it, what to expect, then the command after '--'."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--signal", required=True,
                        choices=["INT", "TERM", "HUP", "USR1", "XCPU", "KILL"])
    parser.add_argument("--twice", action="store_true",
                        help="send the signal again once tilemm says it heard the first")
    when = parser.add_mutually_exclusive_group(required=True)
    when.add_argument("--after-results", type=int, metavar="N")
    when.add_argument("--after-progress", type=float, metavar="SECONDS")
    parser.add_argument("--exit", type=int, required=True,
                        help="expected exit status (negative: killed by that signal)")
    parser.add_argument("--status", required=True, help="expected status in the result files")
    parser.add_argument("--results", nargs=2, metavar=("JSON", "CSV"), required=True)
    parser.add_argument("--to-rank", type=int, metavar="R",
                        help="signal rank R of an Open MPI run instead of the launcher")
    parser.add_argument("--within", type=float, default=120,
                        help="seconds tilemm may take to exit after the (last) signal")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    return parser.parse_args()


class Run:
    """The command running, its stdout and stderr in temporary files."""

    def __init__(self, command):
        self.out = tempfile.TemporaryFile("w+")
        self.err = tempfile.TemporaryFile("w+")
        print("$ " + " ".join(command))
        self.proc = subprocess.Popen(command, stdout=self.out, stderr=self.err, text=True)
        self.start = time.monotonic()

    def stderr_text(self):
        # pread, not seek and read: tilemm writes through the same open file, whose offset the two
        # processes share. A seek back to 0 while it writes a line in pieces made its next piece
        # overwrite the line's start ("[1/" lost: a test waited 300 s for it, once in many runs).
        fd = self.err.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")

    def wait_for(self, condition, what):
        while not condition():
            if self.proc.poll() is not None:
                fail("tilemm exited (status %d) before %s:\n%s"
                     % (self.proc.returncode, what, self.stderr_text()))
            if time.monotonic() - self.start > 300:
                self.proc.kill()
                fail("no %s within 300 s; stderr so far:\n%s" % (what, self.stderr_text()))
            time.sleep(0.01)

    def outputs(self):
        """stdout and stderr, once the command has ended."""
        self.out.seek(0)
        self.err.seek(0)
        return self.out.read(), self.err.read()


def descends_from(pid, ancestor):
    """Whether process `pid` is `ancestor` or one of its descendants."""
    while pid > 1:
        if pid == ancestor:
            return True
        with open("/proc/%d/stat" % pid) as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])  # the field after the state: ppid
    return False


def rank_process(launcher, rank):
    """The process of MPI rank `rank` among the launcher's descendants (Open MPI gives each rank
    OMPI_COMM_WORLD_RANK)."""
    wanted = b"OMPI_COMM_WORLD_RANK=%d" % rank
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as f:
                if wanted in f.read().split(b"\0") and descends_from(int(name), launcher):
                    return int(name)
        except (OSError, ValueError, IndexError):
            continue  # gone, or not ours to read
    fail("no process of rank %d under the launcher %d" % (rank, launcher))


def interrupt(args, run, json_path):
    """Signals the run when --after-results or --after-progress says (twice with --twice) and waits
    for it to end; returns the results the JSON file held before the signal."""
    signum = getattr(signal, "SIG" + args.signal)
    proc = run.proc
    if args.after_results is not None:
        run.wait_for(lambda: rows_in(json_path) >= args.after_results,
                     "%d result(s) in %s" % (args.after_results, json_path))
    else:
        run.wait_for(lambda: "[1/" in run.stderr_text(), "the first progress line")
        time.sleep(args.after_progress)
    rows_before = max(rows_in(json_path), 0)
    if args.to_rank is None:
        proc.send_signal(signum)
    else:
        os.kill(rank_process(proc.pid, args.to_rank), signum)
    signalled = time.monotonic()
    print("SIG%s sent %.2f s after start%s, with %d result(s) in %s"
          % (args.signal, signalled - run.start,
             "" if args.to_rank is None else " to rank %d" % args.to_rank, rows_before, json_path))
    if args.twice:
        run.wait_for(lambda: HEARD in run.stderr_text(), "the note that the signal was heard")
        proc.send_signal(signum)
        signalled = time.monotonic()
        print("SIG%s sent again" % args.signal)
    try:
        proc.wait(timeout=args.within)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail("tilemm still ran %.0f s after the signal" % args.within)
    print("exit status %d, %.2f s after the signal"
          % (proc.returncode, time.monotonic() - signalled))
    return rows_before


def check_files(args, stdout, rows_before, clean_stop):
    """The result files after the run: whole, with every result finished before the signal, the
    CSV at most the one result being written behind the JSON; returns the JSON document."""
    json_path, csv_path = args.results
    # A result is written to the JSON, then to the CSV: a process killed between the two writes
    # leaves a CSV without the result the JSON just got. A clean stop leaves them equal.
    doc = check_results(json_path, csv_path if clean_stop else None, None, "pass", None, None,
                        args.status)
    rows = len(doc["results"])
    if not clean_stop:
        with open(csv_path, newline="") as f:
            table = list(csv.DictReader(f))
        if len(table) not in (rows, rows - 1):
            fail("CSV has %d rows, JSON %d: more than the one result being written apart"
                 % (len(table), rows))
        for c, j in zip(table, doc["results"]):
            if c["kernel"] != j["kernel"] or int(c["m"]) != j["m"] or int(c["n"]) != j["n"]:
                fail("CSV row %r differs from JSON row %r" % (c, j))
        print("CSV: %d row(s), JSON: %d" % (len(table), rows))
    if rows < rows_before:
        fail("%d result(s) in %s after the signal, %d before: results were lost"
             % (rows, json_path, rows_before))
    if clean_stop:
        table_rows = len([line for line in stdout.splitlines()[1:] if line.strip()])
        if table_rows != rows:
            fail("the table printed %d result(s), the files hold %d" % (table_rows, rows))
        for path in args.results:
            folder = os.path.dirname(os.path.abspath(path))
            prefix = "." + os.path.basename(path) + ".tmp."  # atomic_file.cpp's temporary name
            temporary = [n for n in os.listdir(folder) if n.startswith(prefix)]
            if temporary:
                fail("temporary files left behind: %r" % temporary)
    return doc


def main():
    args = parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    signum = getattr(signal, "SIG" + args.signal)
    clean_stop = args.signal != "KILL" and not args.twice

    for path in args.results:
        if os.path.exists(path):
            os.remove(path)
    run = Run(command)
    rows_before = interrupt(args, run, args.results[0])
    stdout, stderr = run.outputs()
    print("--- stdout\n" + stdout + "--- stderr\n" + stderr)

    if run.proc.returncode != args.exit:
        fail("exit status %d, expected %d" % (run.proc.returncode, args.exit))
    # Rank 0 alone says at once that it heard a signal: every rank of an MPI run hears it from the
    # launcher, and a rank signalled alone stays quiet until every rank has stopped.
    if args.signal != "KILL" and not args.to_rank and HEARD not in stderr:
        fail("stderr does not say at once that the signal was heard")
    if stderr.count(HEARD) > 1:
        fail("stderr says %d times that the signal was heard" % stderr.count(HEARD))
    stopped = "stopped by signal %d (SIG%s%s); finished results are kept" % (
        signum, args.signal, ", on rank %d" % args.to_rank if args.to_rank else "")
    if clean_stop and stopped not in stderr:
        fail("stderr does not say which signal stopped the run: %r" % stopped)
    doc = check_files(args, stdout, rows_before, clean_stop)
    print("ok: %d result(s) kept, status %r" % (len(doc["results"]), doc["status"]))


if __name__ == "__main__":
    main()
