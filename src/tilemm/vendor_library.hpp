// Which library `kokkos-kernels` (KokkosBlas::gemm) calls in this process: the baseline of every
// timing and the reference of every validation. A comparison is only as fair as that library's own
// choice of kernel (Debian's OpenBLAS 0.3.21 takes a recent Xeon for a 2004 one, and runs 5 times
// slower there: perf/LOG.md v8), so results name it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tilemm::vendor_library {

using Facts = std::vector<std::pair<std::string, std::string>>;

/// The host BLAS: {"blas", openblas_get_config()} and {"blas_core", openblas_get_corename()} for
/// OpenBLAS, the kernel set it chose ("Zen", "SkylakeX", "Prescott"); {"blas", "unidentified"}
/// for any other BLAS.
Facts host_blas();

/// {"cublas_version", "MAJOR.MINOR.PATCH"} when cuBLAS is in the process; nothing otherwise.
Facts cublas();

}  // namespace tilemm::vendor_library
