#include "tilemm/vendor_library.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

#include <KokkosKernels_config.h>

namespace tilemm::vendor_library {
namespace {

const char* const kOwnGemm = "none: Kokkos Kernels' own gemm";

/// A function of a library the process has loaded, found by name (nullptr if none has it): tilemm
/// includes no BLAS or cuBLAS header and works with whichever the Kokkos Kernels build linked.
template <class Function>
Function* find(const char* name) {
  return reinterpret_cast<Function*>(dlsym(RTLD_DEFAULT, name));
}

Facts host_blas() {
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  const auto config = find<char*()>("openblas_get_config");
  const auto corename = find<char*()>("openblas_get_corename");
  if (config == nullptr || corename == nullptr) return {{"blas", "unidentified BLAS"}};
  return {{"blas", config()}, {"blas_core", corename()}};
#else
  return {{"blas", kOwnGemm}};
#endif
}

Facts cublas() {
#ifdef KOKKOSKERNELS_ENABLE_TPL_CUBLAS
  // cublasStatus_t cublasGetProperty(libraryPropertyType, int*); the types are C enums.
  const auto property = find<int(int, int*)>("cublasGetProperty");
  int part[3] = {};  // MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
  for (int i = 0; i < 3; ++i) {
    if (property == nullptr || property(i, &part[i]) != 0) return {{"blas", "cuBLAS"}};
  }
  return {{"blas", "cuBLAS " + std::to_string(part[0]) + "." + std::to_string(part[1]) + "." +
                       std::to_string(part[2])}};
#else
  return {{"blas", kOwnGemm}};
#endif
}

}  // namespace

Facts describe(bool cuda) {
  return cuda ? cublas() : host_blas();
}

std::string thread_note(const Facts& facts, const std::string& backend, int threads) {
  static const std::string kLimit = " MAX_THREADS=";  // in openblas_get_config()'s text
  const auto blas = std::find_if(facts.begin(), facts.end(),
                                 [](const auto& fact) { return fact.first == "blas"; });
  if (blas == facts.end() || blas->second.rfind("OpenBLAS", 0) != 0) return "";
  const auto at = blas->second.find(kLimit);
  const int most =
      at == std::string::npos ? 0 : std::atoi(blas->second.c_str() + at + kLimit.size());
  if (most <= 0 || threads <= most) return "";
  return "tilemm: note: OpenBLAS, which kokkos-kernels calls, was built for at most " +
         std::to_string(most) + " threads, and this " + backend + " run has " +
         std::to_string(threads) + ": kokkos-kernels and every fraction of it compare with " +
         "OpenBLAS on " + std::to_string(most) + " threads\n";
}

}  // namespace tilemm::vendor_library
