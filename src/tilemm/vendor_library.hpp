// Which library `kokkos-kernels` (KokkosBlas::gemm) calls in this process: the baseline of every
// timing and the reference of every validation. A comparison is only as fair as that library's
// build, its choice of kernel and its threads (an OpenBLAS that takes a recent CPU for an old one
// runs several times slower), so results name it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tilemm::vendor_library {

using Facts = std::vector<std::pair<std::string, std::string>>;

/// On a CPU backend, for the BLAS whose dgemm_ the process calls: {"blas", openblas_get_config()}
/// and {"blas_core", openblas_get_corename()}, the kernel set OpenBLAS chose ("Zen", "SkylakeX",
/// "Prescott"); {"blas", "BLIS <version>"}; or {"blas", "unidentified BLAS"} for another BLAS;
/// then {"blas_library", its file}, and {"blas_threads", N} where the library keeps a thread count
/// of its own rather than OpenMP's (BLIS; an OpenBLAS built without OpenMP). On CUDA:
/// {"blas", "cuBLAS MAJOR.MINOR.PATCH"} and {"blas_library", cuBLAS's file}. Without the TPL,
/// {"blas", "none: Kokkos Kernels' own gemm"}.
Facts describe(bool cuda);

/// A note for a run whose BLAS in `facts` runs on another number of threads than the backend's
/// `threads`: its own count (blas_threads) differs, or the run has more threads than OpenBLAS was
/// built for (MAX_THREADS). `kokkos-kernels`, the baseline, then runs on other threads than
/// tilemm's kernels. Empty when there is nothing to say.
std::string thread_note(const Facts& facts, const std::string& backend, int threads);

/// How many buffers OpenBLAS maps on the first call of a run on `threads` threads, each
/// BUFFER_SIZE (128 MiB on x86-64) of address space, which it waits for for ever when `ulimit -v`
/// or `ulimit -d` leaves no room for them; 0 for another BLAS.
int openblas_buffers_on_first_call(int threads);

}  // namespace tilemm::vendor_library
