// The kernels tilemm knows, by the names used in spec files, on the command line and in results.
// Kokkos-free, so that the spec reader can check names without knowing how kernels run.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "tilemm/types.hpp"

namespace tilemm {

inline const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = {"naive",        "tiled", "register-tiled",
                                                 "tensor-tiled", "ozaki", "kokkos-kernels"};
  return names;
}

/// Whether a kernel runs in this precision: ozaki runs in double only.
inline bool kernel_takes(const std::string& kernel, Precision precision) {
  return kernel != "ozaki" || precision == Precision::Double;
}

/// The kernel meant by a name that is none: the libraries `kokkos-kernels` calls ("cublas",
/// "openblas", "blas", ...), in any case; "" for another name.
inline std::string kernel_meant_by(std::string name) {
  for (auto& c : name) c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  static const std::vector<std::string> vendors = {
      "cublas", "blas",       "openblas",       "blis",          "mkl",
      "vendor", "kokkosblas", "kokkos_kernels", "kokkoskernels", "gemm",
      "dgemm",  "sgemm",      "cutlass",        "rocblas",       "hipblas"};
  return std::find(vendors.begin(), vendors.end(), name) != vendors.end() ? "kokkos-kernels" : "";
}

/// Kernels whose launch takes a tile and a team size (the team-scratch kernels).
inline const std::vector<std::string>& tiled_kernel_names() {
  static const std::vector<std::string> names = {"tiled", "register-tiled", "tensor-tiled"};
  return names;
}
inline bool kernel_is_tiled(const std::string& name) {
  const auto& tiled = tiled_kernel_names();
  return std::find(tiled.begin(), tiled.end(), name) != tiled.end();
}

/// Kernels that split K into ranges summed apart when a spec or their plan asks (split_k).
inline const std::vector<std::string>& split_kernel_names() {
  static const std::vector<std::string> names = {"register-tiled", "tensor-tiled"};
  return names;
}
inline bool kernel_splits_k(const std::string& name) {
  const auto& split = split_kernel_names();
  return std::find(split.begin(), split.end(), name) != split.end();
}

}  // namespace tilemm
