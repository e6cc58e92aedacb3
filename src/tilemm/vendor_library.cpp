#include "tilemm/vendor_library.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <KokkosKernels_config.h>

namespace tilemm::vendor_library {
namespace {

const char* const kOwnGemm = "none: Kokkos Kernels' own gemm";

/// The function `name` of the loaded object `handle` or of a library it loaded itself (nullptr if
/// none has it): tilemm includes no BLAS or cuBLAS header and works with whichever Kokkos Kernels
/// linked.
template <class Function>
Function* find(void* handle, const char* name) {
  return reinterpret_cast<Function*>(dlsym(handle, name));
}

/// The file of the loaded object (a shared library, or the program) that defines `function`, as
/// the loader named it; nullptr when there is none.
[[maybe_unused]] const char* object_defining(const void* function) {
  Dl_info where{};
  return function != nullptr && dladdr(function, &where) != 0 ? where.dli_fname : nullptr;
}

/// A file with links resolved: Debian puts the variants of one BLAS (OpenMP, pthreads, serial)
/// behind one linked name, and the folder names the variant.
[[maybe_unused]] std::string resolved(const char* file) {
  std::error_code failed;
  const auto path = std::filesystem::canonical(file, failed);
  return failed ? file : path.string();
}

/// The most threads an OpenBLAS was built for, as its description of its build (`config`) names
/// them (MAX_THREADS=N); 0 where it does not.
int built_for_threads(const std::string& config) {
  static const std::string kLimit = " MAX_THREADS=";
  const auto at = config.find(kLimit);
  return at == std::string::npos ? 0 : std::atoi(config.c_str() + at + kLimit.size());
}

#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
/// The threads BLIS runs a gemm on: the product of its loops' ways (BLIS_JC_NT, ...) when any is
/// set, which BLIS takes before a total; else its total (BLIS_NUM_THREADS, else OMP_NUM_THREADS);
/// one when none is set, whatever OpenMP's count.
int blis_threads(void* blis) {
  // The functions return dim_t, 64 bits in most builds and 32 in some: the low 32 bits, where both
  // ABIs of interest (x86-64, AArch64) leave a return value, hold every count.
  using Count = std::int32_t();
  int ways = 0;
  for (const char* loop : {"jc", "pc", "ic", "jr", "ir"}) {
    const auto get = find<Count>(blis, ("bli_thread_get_" + std::string(loop) + "_nt").c_str());
    if (get != nullptr && get() >= 1) ways = (ways > 0 ? ways : 1) * get();
  }
  if (ways > 0) return ways;
  const auto total = find<Count>(blis, "bli_thread_get_num_threads");
  return total != nullptr && total() > 0 ? total() : 1;
}

/// The loaded object whose dgemm_ runs, and a handle that searches it (nullptr, nullptr if none).
std::pair<const char*, void*> running_blas() {
  // The first loaded object to define dgemm_ is the one that runs: a BLAS put first with LD_PRELOAD
  // replaces the linked one, which may stay loaded. Only that object's functions, or those of a
  // library it loaded itself (Debian's libblas.so.3 of OpenBLAS calls libopenblas.so.0), describe
  // it, and dlsym on the object's own handle searches exactly those. A BLAS linked into the program
  // has no handle by its name: the program's own handle searches the program first.
  const char* library = object_defining(dlsym(RTLD_DEFAULT, "dgemm_"));
  if (library == nullptr) return {nullptr, nullptr};
  void* handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) handle = dlopen(nullptr, RTLD_LAZY);
  return {library, handle};
}
#endif

Facts host_blas() {
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  const auto [library, handle] = running_blas();
  if (library == nullptr) return {{"blas", "unidentified BLAS"}};
  Facts facts = {{"blas", "unidentified BLAS"}};
  if (const auto config = find<char*()>(handle, "openblas_get_config")) {
    const std::string build = config();
    facts = {{"blas", build}};
    if (const auto core = find<char*()>(handle, "openblas_get_corename"))
      facts.emplace_back("blas_core", core());
    // An OpenMP build follows OpenMP's thread count, which the backend sets; any other keeps a
    // count of its own (OPENBLAS_NUM_THREADS, else every core), on the serial backend too.
    const auto threads = find<int()>(handle, "openblas_get_num_threads");
    if (build.find("USE_OPENMP") == std::string::npos && threads != nullptr)
      facts.emplace_back("blas_threads", std::to_string(threads()));
  } else if (const auto version = find<const char*()>(handle, "bli_info_get_version_str")) {
    facts = {{"blas", "BLIS " + std::string(version())},
             {"blas_threads", std::to_string(blis_threads(handle))}};
  }
  if (handle != nullptr) dlclose(handle);
  facts.emplace_back("blas_library", resolved(library));
  return facts;
#else
  return {{"blas", kOwnGemm}};
#endif
}

Facts cublas() {
#ifdef KOKKOSKERNELS_ENABLE_TPL_CUBLAS
  // cublasStatus_t cublasGetProperty(libraryPropertyType, int*): major version, minor version and
  // patch level are the types 0, 1 and 2; status 0 is success.
  const auto property = find<int(int, int*)>(RTLD_DEFAULT, "cublasGetProperty");
  const char* library = object_defining(reinterpret_cast<const void*>(property));
  if (library == nullptr) return {{"blas", "cuBLAS"}};
  int major = 0, minor = 0, patch = 0;
  const bool known =
      property(0, &major) == 0 && property(1, &minor) == 0 && property(2, &patch) == 0;
  return {{"blas", known ? "cuBLAS " + std::to_string(major) + "." + std::to_string(minor) + "." +
                               std::to_string(patch)
                         : "cuBLAS"},
          {"blas_library", resolved(library)}};
#else
  return {{"blas", kOwnGemm}};
#endif
}

}  // namespace

Facts describe(bool cuda) {
  return cuda ? cublas() : host_blas();
}

std::string thread_note(const Facts& facts, const std::string& backend, int threads) {
  std::string blas, counted;
  for (const auto& [key, value] : facts) {
    if (key == "blas") blas = value;
    if (key == "blas_threads") counted = value;
  }
  const bool openblas = blas.rfind("OpenBLAS", 0) == 0;
  if (!openblas && blas.rfind("BLIS", 0) != 0) return "";
  const std::string name = openblas ? "OpenBLAS" : "BLIS";
  const auto count = [](int n) {
    return std::to_string(n) + (n == 1 ? " thread" : " threads");
  };
  const int most = openblas ? built_for_threads(blas) : 0;
  int blas_threads = std::atoi(counted.c_str());
  std::string why, hint;
  if (blas_threads > 0 && blas_threads != threads) {
    // A count past the most threads OpenBLAS was built for comes as close as it can.
    const int closest = most > 0 ? std::min(threads, most) : threads;
    why = "runs on " + count(blas_threads) + " by its own count";
    if (closest != blas_threads) {
      hint = " (set " + std::string(openblas ? "OPENBLAS" : "BLIS") +
             "_NUM_THREADS=" + std::to_string(closest) +
             (closest == threads ? " to match)" : ", its most)");
    }
  } else if (most > 0 && threads > most) {
    blas_threads = most;
    why = "was built for at most " + count(most);
  } else {
    return "";
  }
  return "tilemm: note: " + name + ", which kokkos-kernels calls, " + why + ", and this " +
         backend + " run has " + std::to_string(threads) +
         ": kokkos-kernels and every fraction of it compare with " + name + " on " +
         count(blas_threads) + hint + "\n";
}

int openblas_buffers_on_first_call(int threads) {
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  const auto [library, handle] = running_blas();
  if (library == nullptr) return 0;
  const auto config = find<char*()>(handle, "openblas_get_config");
  const auto mapped = find<int()>(handle, "openblas_get_num_threads");
  int buffers = 0;
  if (config != nullptr) {
    // Every OpenBLAS maps a buffer for the calling thread. An OpenMP build maps one for each of
    // OpenMP's threads as it loads and, on a call on more threads than that, one for each thread
    // added, up to the most threads it was built for; a pthreads build maps its threads' buffers
    // as it loads.
    const std::string build = config();
    buffers = 1;
    const int most = built_for_threads(build) > 0 ? built_for_threads(build) : threads;
    if (build.find("USE_OPENMP") != std::string::npos && mapped != nullptr)
      buffers += std::max(0, std::min(threads, most) - mapped());
  }
  if (handle != nullptr) dlclose(handle);
  return buffers;
#else
  (void)threads;
  return 0;
#endif
}

}  // namespace tilemm::vendor_library
