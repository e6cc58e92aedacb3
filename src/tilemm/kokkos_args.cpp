#include "tilemm/kokkos_args.hpp"

#include <dlfcn.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "tilemm/errors.hpp"

namespace tilemm {

namespace {

// The flags this Kokkos reads, as its --kokkos-help lists them. Kokkos 3 ignores a flag it does not
// know and Kokkos 4 only warns of it, so that a misspelled --kokkos-num-thread=1 would run on every
// processor: tilemm refuses any other --kokkos-* flag instead.
#if KOKKOS_VERSION >= 30700
constexpr const char* kFlags[] = {"--kokkos-help",
                                  "--kokkos-disable-warnings",
                                  "--kokkos-print-configuration",
                                  "--kokkos-tune-internals",
                                  "--kokkos-num-threads",
                                  "--kokkos-device-id",
                                  "--kokkos-map-device-id-by",
                                  "--kokkos-tools-libs",
                                  "--kokkos-tools-args",
                                  "--kokkos-tools-help"};
#else
constexpr const char* kFlags[] = {"--kokkos-help",           "--kokkos-disable-warnings",
                                  "--kokkos-tune-internals", "--kokkos-num-threads",
                                  "--kokkos-numa",           "--kokkos-device-id",
                                  "--kokkos-num-devices",    "--kokkos-tools-library",
                                  "--kokkos-tools-args",     "--kokkos-tools-help"};
#endif

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

/// Loads the tools library that Kokkos would load as it starts (the first of a ';' list) named by
/// `where` as `value`: Kokkos prints its own error for one it cannot load and runs on without the
/// tool, so a run that asked for a profiler or a tuner is refused instead. Loaded as Kokkos loads
/// it, it stays loaded for Kokkos.
void check_tools_library(const std::string& where, const std::string& value) {
  const std::string library = value.substr(0, value.find(';'));
  if (library.empty() || ::dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return;
  const char* why = ::dlerror();
  throw InputError(where + ": cannot load the Kokkos tools library '" + library +
                   "': " + (why ? why : "unknown reason"));
}

}  // namespace

KokkosArguments::KokkosArguments(int argc, char** argv, std::vector<std::string>& ours) {
  args_.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!starts_with(arg, "--kokkos-")) {
      ours.push_back(arg);
      continue;
    }
    flags_.push_back(arg);
#if KOKKOS_VERSION < 30700
    if (starts_with(arg, "--kokkos-num-threads=")) arg.replace(0, 20, "--kokkos-threads");
#endif
    args_.push_back(arg);
  }
  for (auto& a : args_) argv_.push_back(a.data());
  argv_.push_back(nullptr);
  argc_ = static_cast<int>(args_.size());
}

void KokkosArguments::check() const {
  bool tools_flag = false;
  for (const std::string& flag : flags_) {
    const auto equals = flag.find('=');
    const std::string name = flag.substr(0, equals);
    if (std::find(std::begin(kFlags), std::end(kFlags), name) == std::end(kFlags)) {
      std::string names;
      for (const char* known : kFlags) names += (names.empty() ? "" : ", ") + std::string(known);
      throw InputError(name + ": not an option of Kokkos (its options: " + names +
                       "; see tilemm --kokkos-help)");
    }
    // Kokkos 4 aborts on a count that is not a number; Kokkos 3 reads it with std::stoi, and past
    // the end of a flag without one, failing with the bare message "stoi" or reading memory that is
    // not the flag's. Checked here, such a count is a usage error (exit status 2) with either.
    const std::string value = equals == std::string::npos ? "" : flag.substr(equals + 1);
    if ((name == "--kokkos-num-threads" || name == "--kokkos-device-id") &&
        (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)) {
      throw InputError(name + ": needs a whole number (" + name + "=N)" +
                       (equals == std::string::npos ? "" : ", got '" + value + "'"));
    }
    if (name == "--kokkos-tools-libs" || name == "--kokkos-tools-library") {
      check_tools_library(name, value);
      tools_flag = true;
    }
  }
  // Without the flag, Kokkos reads the library from the first of its variables that is set.
#if KOKKOS_VERSION >= 30700
  const char* variables[] = {"KOKKOS_TOOLS_LIBS", "KOKKOS_PROFILE_LIBRARY"};
#else
  const char* variables[] = {"KOKKOS_PROFILE_LIBRARY"};
#endif
  for (const char* variable : variables) {
    const char* value = std::getenv(variable);
    if (tools_flag || !value) continue;
    check_tools_library(variable, value);
    break;
  }
}

bool KokkosArguments::help() const {
  return std::find(flags_.begin(), flags_.end(), "--kokkos-help") != flags_.end();
}

void check_host_threads() {
#ifdef KOKKOS_ENABLE_OPENMP
  // Kokkos' OpenMP backend runs on 1 to 512 threads and checks neither bound as it starts: past 512
  // (MAX_THREAD_COUNT in Kokkos 3.4 to 4.6) it writes beyond an array and may crash or run on, and
  // Kokkos 3.4 takes KOKKOS_NUM_THREADS=0 and aborts at the first kernel.
  if (const int threads = Kokkos::OpenMP().concurrency(); threads < 1 || threads > 512) {
    throw InputError("Kokkos' OpenMP backend started " + std::to_string(threads) +
                     " threads, and runs on 1 to 512: set --kokkos-num-threads=N or "
                     "OMP_NUM_THREADS to such a count");
  }
#endif
}

}  // namespace tilemm
