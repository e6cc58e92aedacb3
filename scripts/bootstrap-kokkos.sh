#!/usr/bin/env bash
# Builds Kokkos and Kokkos Kernels with the OpenMP and Serial backends into a cache prefix outside the
# checkout, from the Kokkos 3.4.1 sources inside Debian's own `trilinos` source package (the binary
# libtrilinos-kokkos-dev is Serial-only, so it cannot serve). Run once per machine; later calls return
# at once. The prefix is printed as the last line of stdout.
#
#   TILEMM_KOKKOS_PREFIX  where to install (default: ~/.cache/tilemm/kokkos-3.4.1-openmp-<arch>)
#   TILEMM_KOKKOS_ARCH    a Kokkos host arch option such as SKX, HSW, ZEN3 (default: from /proc/cpuinfo;
#                         "none" for a generic build)
#   TILEMM_JOBS           parallel build jobs (default: nproc)
set -euo pipefail

log() { printf '[bootstrap-kokkos] %s\n' "$*" >&2; }

detect_arch() {
  # Kokkos 3.4 has no ARCH_NATIVE; map the CPU's vector extensions onto the closest host arch option.
  local flags vendor
  flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
  vendor=$(grep -m1 '^vendor_id' /proc/cpuinfo 2>/dev/null || true)
  if [[ $flags == *" avx512f "* && $flags == *" avx512vl "* ]]; then echo SKX
  elif [[ $flags == *" avx2 "* && $vendor == *AMD* ]]; then echo ZEN2
  elif [[ $flags == *" avx2 "* ]]; then echo HSW
  else echo none; fi
}

arch=${TILEMM_KOKKOS_ARCH:-$(detect_arch)}
prefix=${TILEMM_KOKKOS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/tilemm/kokkos-3.4.1-openmp-${arch,,}}
jobs=${TILEMM_JOBS:-$(nproc)}

if [[ -f $prefix/.tilemm-complete ]]; then
  log "using the Kokkos already built in $prefix"
  echo "$prefix"
  exit 0
fi

for tool in apt-get cmake c++ tar; do
  command -v "$tool" >/dev/null || { log "error: '$tool' is needed"; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/tilemm-kokkos.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- 1. The source: apt's own client, with a private source list and state folder, so the machine's apt
#        configuration stays as it is. The deb-src entries repeat the machine's Debian entries.
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ -n $codename ]] || { log "error: cannot tell the Debian release from /etc/os-release"; exit 1; }
mkdir -p "$work/apt/lists/partial" "$work/apt/parts" "$work/src"
cat_existing() { local f; for f in "$@"; do [[ -f $f ]] && cat "$f"; done; return 0; }
{
  # one-line format: "deb [options] URI suite components..."
  cat_existing /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
    awk -v c="$codename" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ "^" c "(-|$)") { $1 = "deb-src"; print; break } }'
  # deb822 format: stanzas of "Field: value" lines
  cat_existing /etc/apt/sources.list.d/*.sources |
    awk -v c="$codename" '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && uris != "") {
          n = split(suites, s, " ")
          for (i = 1; i <= n; i++)
            if (s[i] ~ "^" c "(-|$)")
              print "deb-src" (signed != "" ? " [signed-by=" signed "]" : "") " " uris " " s[i] " " comps
        }
        types = uris = suites = comps = signed = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
      /^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
      /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
      /^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
      /^Signed-By:/ { sub(/^Signed-By:[ \t]*/, ""); signed = $0 }
      END { flush() }'
} >"$work/apt/parts/debian-src.list"
[[ -s $work/apt/parts/debian-src.list ]] || { log "error: no Debian '$codename' entry in apt's sources"; exit 1; }

apt_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/apt/parts"
          -o Dir::State::Lists="$work/apt/lists" -o APT::Sandbox::User=root)
log "downloading the source index of Debian '$codename'"
apt-get "${apt_opts[@]}" update
log "downloading Debian's trilinos source package (about 170 MB; it holds Kokkos and Kokkos Kernels 3.4.1)"
(cd "$work/src" && apt-get "${apt_opts[@]}" source --download-only trilinos)
orig=$(ls "$work"/src/trilinos_*.orig.tar.* | head -n1)
log "unpacking packages/kokkos and packages/kokkos-kernels from $(basename "$orig")"
tar -xf "$orig" -C "$work/src" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
packages=$(dirname "$(ls -d "$work"/src/*/packages/kokkos)")

# --- 2. Kokkos: OpenMP + Serial, C++17, position-independent so that shared libraries can link it.
arch_opt=()
[[ $arch == none ]] || arch_opt=(-DKokkos_ARCH_${arch}=ON)
common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_INSTALL_LIBDIR=lib)
log "building Kokkos (OpenMP, Serial, arch: $arch) into $prefix with $jobs jobs"
cmake -S "$packages/kokkos" -B "$work/build-kokkos" "${common[@]}" "${arch_opt[@]}" \
  -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF
cmake --build "$work/build-kokkos" --parallel "$jobs"
cmake --install "$work/build-kokkos"

# --- 3. Kokkos Kernels with the BLAS TPL (OpenBLAS when present, else the system BLAS). tilemm only
#        calls KokkosBlas::gemm on float/double views of one layout, which the TPL serves from headers,
#        so no explicit instantiation is built: that keeps this step to a minute instead of ten.
blas=()
if compgen -G '/usr/lib/*/libopenblas.so' >/dev/null || [[ -f /usr/lib/libopenblas.so ]]; then
  blas=(-DBLAS_LIBRARIES=openblas)
fi
log "building Kokkos Kernels (BLAS TPL: ${blas[*]:-system BLAS}) into $prefix with $jobs jobs"
cmake -S "$packages/kokkos-kernels" -B "$work/build-kk" "${common[@]}" -DKokkos_ROOT="$prefix" \
  -DKokkosKernels_ENABLE_TPL_BLAS=ON "${blas[@]}" -DF77_BLAS_MANGLE='(name,NAME) name ## _' \
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_INST_FLOAT=OFF -DKokkosKernels_INST_DOUBLE=OFF \
  -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF \
  -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF \
  -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF \
  -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF
cmake --build "$work/build-kk" --parallel "$jobs"
cmake --install "$work/build-kk"

touch "$prefix/.tilemm-complete"
log "done: Kokkos and Kokkos Kernels are in $prefix"
echo "$prefix"
