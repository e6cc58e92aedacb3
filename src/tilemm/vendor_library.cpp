#include "tilemm/vendor_library.hpp"

#include <dlfcn.h>

namespace tilemm::vendor_library {
namespace {

/// A function of a library the process has loaded, found by name (nullptr if none has it): tilemm
/// includes no BLAS or cuBLAS header and works with whichever the Kokkos Kernels build linked.
template <class Function>
Function* find(const char* name) {
  return reinterpret_cast<Function*>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

Facts host_blas() {
  const auto config = find<char*()>("openblas_get_config");
  const auto corename = find<char*()>("openblas_get_corename");
  if (config == nullptr || corename == nullptr) return {{"blas", "unidentified"}};
  return {{"blas", config()}, {"blas_core", corename()}};
}

Facts cublas() {
  // cublasStatus_t cublasGetProperty(libraryPropertyType, int*); the types are C enums.
  const auto property = find<int(int, int*)>("cublasGetProperty");
  if (property == nullptr) return {};
  int part[3] = {};  // MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
  for (int i = 0; i < 3; ++i) {
    if (property(i, &part[i]) != 0) return {};
  }
  return {{"cublas_version", std::to_string(part[0]) + "." + std::to_string(part[1]) + "." +
                                 std::to_string(part[2])}};
}

}  // namespace tilemm::vendor_library
