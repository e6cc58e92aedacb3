#include "tilemm/vendor_library.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
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

/// The threads BLIS runs a gemm on: the product of its loops' ways (BLIS_JC_NT, ...) when any is
/// set, which BLIS takes before a total; else BLIS_NUM_THREADS (or OMP_NUM_THREADS) as BLIS read
/// it; one when none is set, whatever OpenMP's count (0 when BLIS does not say). `lookup` finds a
/// function of the BLIS library.
template <class Lookup>
int blis_threads(const Lookup& lookup) {
  // The functions return dim_t, 64 bits in most builds and 32 in some: the low 32 bits, where both
  // ABIs of interest (x86-64, AArch64) leave a return value, hold every count.
  using Count = std::int32_t (*)();
  const auto total = reinterpret_cast<Count>(lookup("bli_thread_get_num_threads"));
  if (total == nullptr) return 0;
  std::int64_t product = 1;
  bool ways_set = false;
  for (const char* loop : {"bli_thread_get_jc_nt", "bli_thread_get_pc_nt", "bli_thread_get_ic_nt",
                           "bli_thread_get_jr_nt", "bli_thread_get_ir_nt"}) {
    const auto ways = reinterpret_cast<Count>(lookup(loop));
    if (ways == nullptr || ways() < 1) continue;
    ways_set = true;
    product *= ways();
  }
  if (ways_set) return int(product);
  return total() > 0 ? int(total()) : 1;
}

Facts host_blas() {
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  // A process may hold two BLAS (one preloaded, one linked): the first to define dgemm_ is the one
  // that runs, and only a version function of that object, or of a library it loaded itself (the
  // libblas.so.3 of Debian's OpenBLAS calls libopenblas.so.0), describes it. dlsym with the
  // object's own handle searches exactly those. A BLAS linked into the program itself has no
  // handle of its own by name: the program's (nullptr) searches it first.
  Dl_info library{};
  if (!object_of(find<void>("dgemm_"), library)) return {{"blas", "unidentified BLAS"}};
  void* own = dlopen(library.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  const std::unique_ptr<void, int (*)(void*)> handle(own ? own : dlopen(nullptr, RTLD_LAZY),
                                                     dlclose);
  const auto from_library = [&handle](const char* name) {
    return handle ? dlsym(handle.get(), name) : nullptr;
  };
  const auto config = reinterpret_cast<char* (*)()>(from_library("openblas_get_config"));
  const auto corename = reinterpret_cast<char* (*)()>(from_library("openblas_get_corename"));
  const auto openblas_threads =
      reinterpret_cast<int (*)()>(from_library("openblas_get_num_threads"));
  const auto blis_version =
      reinterpret_cast<const char* (*)()>(from_library("bli_info_get_version_str"));
  Facts facts;
  if (config != nullptr && corename != nullptr) {
    const std::string build = config();
    facts = {{"blas", build}, {"blas_core", corename()}};
    // An OpenMP build follows OpenMP's thread count, which the backend sets; any other keeps a
    // count of its own (OPENBLAS_NUM_THREADS, else every core), the serial backend's too.
    if (build.find("USE_OPENMP") == std::string::npos && openblas_threads)
      facts.emplace_back("blas_threads", std::to_string(openblas_threads()));
  } else if (blis_version != nullptr) {
    facts = {{"blas", std::string("BLIS ") + blis_version()}};
    if (const int threads = blis_threads(from_library); threads > 0)
      facts.emplace_back("blas_threads", std::to_string(threads));
  } else {
    facts = {{"blas", "unidentified BLAS"}};
  }
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
  const auto fact = [&facts](const char* key) -> std::string {
    const auto found = std::find_if(facts.begin(), facts.end(),
                                    [key](const auto& entry) { return entry.first == key; });
    return found == facts.end() ? "" : found->second;
  };
  const std::string blas = fact("blas"), counted = fact("blas_threads");
  const bool openblas = blas.rfind("OpenBLAS", 0) == 0, blis = blas.rfind("BLIS", 0) == 0;
  const std::string name = openblas ? "OpenBLAS" : "BLIS";
  const auto note = [&](int blas_threads, const std::string& why, const std::string& hint) {
    return "tilemm: note: " + name + ", which kokkos-kernels calls, " + why + ", and this " +
           backend + " run has " + std::to_string(threads) +
           ": kokkos-kernels and every fraction of it compare with " + name + " on " +
           std::to_string(blas_threads) + (blas_threads == 1 ? " thread" : " threads") + hint +
           "\n";
  };
  if (!counted.empty() && (openblas || blis)) {
    const int blas_threads = std::atoi(counted.c_str());
    const std::string variable = openblas ? "OPENBLAS_NUM_THREADS" : "BLIS_NUM_THREADS";
    if (blas_threads > 0 && blas_threads != threads)
      return note(
          blas_threads,
          "runs on " + counted + (blas_threads == 1 ? " thread" : " threads") + " by its own count",
          " (set " + variable + "=" + std::to_string(threads) + " to match)");
  }
  static const std::string kLimit = " MAX_THREADS=";  // in openblas_get_config()'s text
  const auto at = openblas ? blas.find(kLimit) : std::string::npos;
  const int most = at == std::string::npos ? 0 : std::atoi(blas.c_str() + at + kLimit.size());
  if (most <= 0 || threads <= most) return "";
  return note(most, "was built for at most " + std::to_string(most) + " threads", "");
}

}  // namespace tilemm::vendor_library
