#!/usr/bin/env bash
# Checks tilemm's Spack environments and package recipe with a real Spack: the spack command in
# TILEMM_SPACK, else the one on PATH; exit status 77 (skipped) without either.
#   spack_check.sh SOURCE WORK env FILE [REGEX...]      concretizes a copy of the environment FILE
#   spack_check.sh SOURCE WORK spec "SPEC" [REGEX...]   `spack spec SPEC` with the recipe's repository
#   spack_check.sh SOURCE WORK refuse "SPEC" [REGEX...] the same, which must fail
#   spack_check.sh SOURCE WORK broken SED "SPEC" [REGEX...]
#                                  spec's check on a copy of the recipe that the sed script SED
#                                  breaks on purpose: Spack must concretize it and a REGEX then fail
# Each extended REGEX must match a line of what Spack prints (the concretized specs, or for refuse
# its message). Spack concretizes afresh (--fresh): an installed tilemm or Kokkos is never reused,
# so what is checked is the recipe as it stands, not what an earlier recipe installed. Everything is
# written into the folder WORK: the source tree and the user's Spack configuration stay untouched
# (the recipe's repository is added for these commands only, in a configuration scope of WORK).
set -euo pipefail
source_dir=$1 work=$2 what=$3 subject=$4
shift 4
spack=${TILEMM_SPACK:-$(command -v spack || true)}
if [[ -z $spack ]]; then
  echo "no spack on PATH and TILEMM_SPACK unset: skipped"
  exit 77
fi

rm -rf "$work"
mkdir -p "$work/scope"
repo=$source_dir/scripts/spack-repo/spack_repo/tilemm
if [[ $what == broken ]]; then
  # Spack takes a repository only from a folder named spack_repo. The copy's recipe finds no git
  # checkout beside it, so Spack leaves its commit unresolved (a warning), which the checks ignore.
  edit=$subject subject=$1
  shift
  mkdir "$work/spack_repo"
  cp -r "$repo" "$work/spack_repo/"
  repo=$work/spack_repo/tilemm
  recipe=packages/tilemm/package.py
  sed -i -E "$edit" "$repo/$recipe"
  if cmp -s "$source_dir/scripts/spack-repo/spack_repo/tilemm/$recipe" "$repo/$recipe"; then
    echo "FAIL: the sed script '$edit' leaves the recipe as it is"
    exit 1
  fi
fi
printf 'repos:\n  tilemm: %s\n' "$repo" >"$work/scope/repos.yaml"
if [[ $what == env ]]; then
  mkdir "$work/env"
  cp "$subject" "$work/env/spack.yaml"
  command=("$spack" -C "$work/scope" -e "$work/env" concretize --fresh)
else
  read -r -a words <<<"$subject"
  command=("$spack" -C "$work/scope" spec --fresh "${words[@]}")
fi
echo "${command[*]}"
status=0
"${command[@]}" >"$work/out.txt" 2>&1 || status=$?
if [[ $what == refuse ]]; then
  ((status != 0)) || { cat "$work/out.txt"; echo "FAIL: Spack concretized '$subject'"; exit 1; }
  status=0
elif ((status != 0)); then
  cat "$work/out.txt"
  exit 1
fi

for regex in "$@"; do
  if ! grep -Eq -- "$regex" "$work/out.txt"; then
    echo "FAIL: no line matches '$regex'"
    status=1
  fi
done
# The versions Spack chose, for the log (and the README's record of what was checked).
grep -oE '(tilemm|kokkos|kokkos-kernels|cuda|openblas|openmpi|mpich|nccl)@[^ ~+]+' \
  "$work/out.txt" | sort -u | tr '\n' ' ' || true
echo
if [[ $what == broken ]]; then
  ((status != 0)) || { echo "FAIL: every check passed on the recipe broken by '$edit'"; exit 1; }
  echo "the checks above failed on the recipe broken by '$edit', as they should"
  exit 0
fi
((status == 0)) || cat "$work/out.txt"
exit $status
