#!/usr/bin/env bash
# Packs executables with the shared libraries they load into one xz archive, for a machine that
# has none of the build's packages (the lent GPU machines run another distribution): the
# executables at the archive's top, the libraries in lib/. Left out are the libraries the machine
# that runs has of its own: the C and C++ runtimes and the loader, and the GPU driver and CUDA
# toolkit libraries (driver, runtime, cuBLAS, NCCL, NVML), which have to match its GPU driver.
#
#   perf/bundle.sh ARCHIVE.tar.xz EXECUTABLE...
#
# Run an executable from the archive with its libraries first on the search path:
#   tar -xJf ARCHIVE.tar.xz -C DIR && LD_LIBRARY_PATH=DIR/lib DIR/tilemm ...
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,11p' "$0"; exit 2; }
archive=$1
shift
staging=$(mktemp -d "${TMPDIR:-/tmp}/bundle.XXXXXX")
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/lib"
system='/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*|libcuda|libcudart|libcublas(Lt)?|libnccl|libnvidia-ml)\.so'
for executable in "$@"; do
  cp -L "$executable" "$staging/"
  ldd "$executable" | awk '$3 ~ /^\// { print $3 }' | grep -Ev "$system" |
    xargs -r -I{} cp -L {} "$staging/lib/"
done
tar -cf - -C "$staging" . | xz -T"${TILEMM_JOBS:-$(nproc)}" -6 >"$archive"
ls -l "$archive" >&2
