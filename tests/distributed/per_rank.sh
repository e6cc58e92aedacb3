#!/usr/bin/env bash
# per_rank.sh RANK CHANGE -- COMMAND...: runs COMMAND on every rank of an Open MPI run, changed on
# rank RANK alone: a CHANGE of the form NAME=VALUE sets that environment variable there; any other
# CHANGE replaces COMMAND's last argument there (a spec file). For the failure tests: a failure on
# one rank must end every rank with its status and message.
set -euo pipefail
rank=$1 change=$2
shift 2
[[ ${1:-} == -- ]] && shift
if [[ ${OMPI_COMM_WORLD_RANK:-0} != "$rank" ]]; then exec "$@"; fi
if [[ $change == *=* ]]; then
  export "${change?}"
  exec "$@"
fi
exec "${@:1:$#-1}" "$change"
