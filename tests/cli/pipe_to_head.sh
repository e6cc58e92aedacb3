#!/usr/bin/env bash
# pipe_to_head.sh COMMAND...: runs COMMAND with its stdout read by `head -1`, which leaves after the
# first line (a job's `tilemm ... | head -1`), and exits with COMMAND's exit status.
"$@" | head -1
exit "${PIPESTATUS[0]}"
