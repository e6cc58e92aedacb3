#include "tilemm/kokkos_args.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/resource.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cctype>
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

/// Digits alone, at most 9 of them (a count or an id, which an int holds).
bool is_whole_number(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         text.find_first_not_of("0123456789") == std::string::npos;
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
        !is_whole_number(value)) {
      throw InputError(name + ": needs a whole number (" + name + "=N)" +
                       (equals == std::string::npos ? "" : ", got '" + value + "'"));
    }
    if (name == "--kokkos-tools-libs" || name == "--kokkos-tools-library") {
      check_tools_library(name, value);
      tools_flag = true;
    }
  }
  check_variables();
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

void KokkosArguments::check_variables() const {
  // Kokkos' variables of whole numbers, and the flag that sets the same (if any). Kokkos throws at
  // a value that is not a number, and Kokkos 3 at a flag and a variable that disagree (Kokkos 4
  // takes the flag): both are settings given wrong, refused here as an input error before Kokkos
  // starts, whatever its version.
  struct Setting {
    const char* variable;
    const char* flag;
  };
#if KOKKOS_VERSION >= 30700
  constexpr Setting kSettings[] = {{"KOKKOS_NUM_THREADS", "--kokkos-num-threads"},
                                   {"KOKKOS_DEVICE_ID", "--kokkos-device-id"}};
#else
  constexpr Setting kSettings[] = {{"KOKKOS_NUM_THREADS", "--kokkos-num-threads"},
                                   {"KOKKOS_DEVICE_ID", "--kokkos-device-id"},
                                   {"KOKKOS_NUMA", "--kokkos-numa"},
                                   {"KOKKOS_NUM_DEVICES", "--kokkos-num-devices"},
                                   {"KOKKOS_SKIP_DEVICE", nullptr}};
#endif
  for (const Setting& setting : kSettings) {
    const char* value = std::getenv(setting.variable);
    if (!value) continue;
    const std::string text = value;
    if (!is_whole_number(text)) {
      throw InputError(std::string(setting.variable) + ": needs a whole number, got '" + text +
                       "'");
    }
    for (const std::string& flag : flags_) {
      const std::string prefix = std::string(setting.flag ? setting.flag : "") + "=";
      if (!setting.flag || !starts_with(flag, prefix)) continue;
      const std::string given = flag.substr(prefix.size());
      if (!is_whole_number(given) || std::stoi(given) != std::stoi(text)) {
        throw InputError(flag + " and " + setting.variable + "=" + text +
                         " disagree: give one of them, or the same value in both");
      }
    }
  }
}

bool KokkosArguments::help() const {
  return std::find(flags_.begin(), flags_.end(), "--kokkos-help") != flags_.end();
}

namespace {

/// The stack a thread of a run needs: a few times what the shipped specs and the suite's specs
/// were seen to take (about 80 KiB on the main thread, 128 KiB on an OpenMP thread, below which
/// the OpenMP runtime cannot make its threads at all).
constexpr std::size_t kStackNeeded = std::size_t(256) << 10;

/// The bytes an OMP_STACKSIZE value gives ("512K", "4 M", "1048576B"; a bare number is KiB, as
/// the OpenMP standard says); 0 for a value the runtime would ignore.
std::size_t omp_stack_bytes(const std::string& text) {
  std::size_t end = 0;
  unsigned long long number = 0;
  try {
    number = std::stoull(text, &end);
  } catch (const std::exception&) {
    return 0;
  }
  const std::size_t unit = text.find_first_not_of(" \t", end);
  const char suffix = unit == std::string::npos ? 'K' : char(std::toupper(text[unit]));
  const std::string units = "BKMG";
  if (units.find(suffix) == std::string::npos ||
      text.find_first_not_of(" \t", unit + 1) != std::string::npos) {
    return 0;
  }
  return std::size_t(number) << (10 * units.find(suffix));
}

std::string kib(std::size_t bytes) {
  return std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

void check_stacks() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      limit.rlim_cur < kStackNeeded) {
    throw RuntimeFailure("the stack limit (ulimit -s) is " + kib(limit.rlim_cur) + ", below the " +
                         kib(kStackNeeded) +
                         " a run needs: raise it (ulimit -s 8192 is the usual default)");
  }
#ifdef KOKKOS_ENABLE_OPENMP
  // The OpenMP runtime gives its threads OMP_STACKSIZE, else the threads' default, which glibc
  // takes from the stack limit.
  const char* asked = std::getenv("OMP_STACKSIZE");
  std::size_t bytes = asked ? omp_stack_bytes(asked) : 0;
  if (bytes == 0) {
    pthread_attr_t attributes;
    if (::pthread_attr_init(&attributes) != 0) return;
    ::pthread_attr_getstacksize(&attributes, &bytes);
    ::pthread_attr_destroy(&attributes);
    asked = nullptr;
  }
  if (bytes < kStackNeeded) {
    throw RuntimeFailure(
        "the OpenMP threads' stack " +
        (asked ? "(OMP_STACKSIZE=" + std::string(asked) + ")" : std::string("(the default)")) +
        " is " + kib(bytes) + ", below the " + kib(kStackNeeded) +
        " a run needs: set OMP_STACKSIZE to more, such as 4M");
  }
#endif
}

void check_host_threads() {
#ifdef KOKKOS_ENABLE_OPENMP
  // Kokkos' OpenMP backend runs on 1 to 512 threads and checks neither bound as it starts: past 512
  // (MAX_THREAD_COUNT in Kokkos 3.4 to 4.6) it writes beyond an array and may crash or run on, and
  // Kokkos 3.4 takes KOKKOS_NUM_THREADS=0 and aborts at the first kernel.
  if (const int threads = Kokkos::OpenMP().concurrency(); threads < 1 || threads > 512) {
    std::string given;  // the variables that may have chosen the count
    for (const char* variable : {"KOKKOS_NUM_THREADS", "OMP_NUM_THREADS"}) {
      if (const char* value = std::getenv(variable)) {
        given += (given.empty() ? " (" : ", ") + std::string(variable) + "=" + value;
      }
    }
    throw InputError("Kokkos' OpenMP backend started " + std::to_string(threads) + " threads" +
                     (given.empty() ? "" : given + ")") +
                     ", and runs on 1 to 512: set --kokkos-num-threads=N, KOKKOS_NUM_THREADS or "
                     "OMP_NUM_THREADS to such a count");
  }
#endif
}

}  // namespace tilemm
