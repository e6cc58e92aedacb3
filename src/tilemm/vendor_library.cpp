#include "tilemm/vendor_library.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <system_error>

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

/// The loaded object (shared library, or the program itself) that defines `symbol`.
bool object_of(const void* symbol, Dl_info& where) {
  return symbol != nullptr && dladdr(symbol, &where) != 0 && where.dli_fname != nullptr;
}

/// The object's file with links resolved: Debian's alternatives and packages put variants of one
/// BLAS (OpenMP, pthreads, serial) behind the same linked name, and the folder names the variant.
std::string file_of(const Dl_info& library) {
  std::error_code failed;
  const auto file = std::filesystem::canonical(library.dli_fname, failed);
  return failed ? library.dli_fname : file.string();
}

Facts host_blas() {
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  // A process may hold two BLAS (one preloaded, one linked): the first to define dgemm_ is the one
  // that runs, and only a version function of that object, or of a library it loaded itself (the
  // libblas.so.3 of Debian's OpenBLAS calls libopenblas.so.0), describes it. dlsym with the
  // object's own handle searches exactly those.
  Dl_info library{};
  if (!object_of(find<void>("dgemm_"), library)) return {{"blas", "unidentified BLAS"}};
  const std::unique_ptr<void, int (*)(void*)> handle(
      dlopen(library.dli_fname, RTLD_LAZY | RTLD_NOLOAD), dlclose);
  const auto from_library = [&handle](const char* name) {
    return handle ? dlsym(handle.get(), name) : nullptr;
  };
  const auto config = reinterpret_cast<char* (*)()>(from_library("openblas_get_config"));
  const auto corename = reinterpret_cast<char* (*)()>(from_library("openblas_get_corename"));
  const auto blis_version =
      reinterpret_cast<const char* (*)()>(from_library("bli_info_get_version_str"));
  Facts facts;
  if (config != nullptr && corename != nullptr)
    facts = {{"blas", config()}, {"blas_core", corename()}};
  else if (blis_version != nullptr)
    facts = {{"blas", std::string("BLIS ") + blis_version()}};
  else
    facts = {{"blas", "unidentified BLAS"}};
  facts.emplace_back("blas_library", file_of(library));
  return facts;
#else
  return {{"blas", kOwnGemm}};
#endif
}

Facts cublas() {
#ifdef KOKKOSKERNELS_ENABLE_TPL_CUBLAS
  // cublasStatus_t cublasGetProperty(libraryPropertyType, int*); the types are C enums.
  const auto property = find<int(int, int*)>("cublasGetProperty");
  Dl_info library{};
  if (!object_of(reinterpret_cast<const void*>(property), library)) return {{"blas", "cuBLAS"}};
  const Facts::value_type file{"blas_library", file_of(library)};
  int part[3] = {};  // MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
  for (int i = 0; i < 3; ++i) {
    if (property(i, &part[i]) != 0) return {{"blas", "cuBLAS"}, file};
  }
  return {{"blas", "cuBLAS " + std::to_string(part[0]) + "." + std::to_string(part[1]) + "." +
                       std::to_string(part[2])},
          file};
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
