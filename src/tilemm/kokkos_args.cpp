#include "tilemm/kokkos_args.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <thread>
#ifdef __linux__
#include <sched.h>
#endif

#include "tilemm/errors.hpp"

namespace tilemm {

namespace {
#if KOKKOS_VERSION < 30700
constexpr const char* kThreadsFlag = "--kokkos-threads";  // as this Kokkos spells it
#else
constexpr const char* kThreadsFlag = "--kokkos-num-threads";
#endif
}  // namespace

KokkosArguments::KokkosArguments(int argc, char** argv, std::vector<std::string>& ours) {
  args_.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--kokkos-", 0) != 0) {
      ours.push_back(arg);
      continue;
    }
    // One spelling of the thread count, the one this Kokkos reads (4.x ignores the old one).
    for (const char* spelling : {"--kokkos-num-threads=", "--kokkos-threads="}) {
      const std::string given = spelling;
      if (arg.rfind(given, 0) == 0) arg.replace(0, given.size() - 1, kThreadsFlag);
    }
    args_.push_back(arg);
  }
  for (auto& a : args_) argv_.push_back(a.data());
  argv_.push_back(nullptr);
  argc_ = static_cast<int>(args_.size());
}

namespace {

#ifdef KOKKOS_ENABLE_OPENMP
// Kokkos' OpenMP backend keeps its threads' data in an array of 512 (OpenMPTraits::MAX_THREAD_COUNT
// in Kokkos 3.4 to 4.6) and does not check the count against it: 513 threads or more end the
// program in a segmentation fault as Kokkos starts.
constexpr long kMostHostThreads = 512;
#else
constexpr long kMostHostThreads = 4096;  // one program on a few thousand threads at most
#endif

/// Digits alone, and few enough that strtol cannot overflow; -1 otherwise. A variable's value may
/// have spaces around it and a + before it, as OpenMP runtimes and Kokkos read them.
long whole_number(std::string text, bool variable = false) {
  if (variable) {
    const auto first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
    text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
    if (!text.empty() && text[0] == '+') text.erase(0, 1);
  }
  const bool digits = !text.empty() && text.size() <= 9 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  return digits ? std::strtol(text.c_str(), nullptr, 10) : -1;
}

/// A variable's value, empty when it is not set.
std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

/// The processors this process may run on: OpenMP's thread count when nothing sets one.
long available_processors() {
#ifdef __linux__
  for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {  // a mask as large as the machine's
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) break;
    const std::size_t size = CPU_ALLOC_SIZE(cpus);
    const bool known = sched_getaffinity(0, size, set) == 0;
    const int error = errno;
    const long count = known ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (known) return count;
    if (error != EINVAL) break;
  }
#endif
  return long(std::thread::hardware_concurrency());
}

}  // namespace

void KokkosArguments::check() const {
  // Each count Kokkos takes, from its flag or its variable: a bad one ends Kokkos::initialize in an
  // exception or an abort of its own (KOKKOS_NUM_THREADS=0: abort), and Kokkos 3.4 refuses a flag
  // and a variable that disagree (4.x takes the flag).
  struct Count {
    const char* flag;   // as the user spells it
    const char* given;  // as args_ holds it (the constructor)
    const char* variable;
    long min, most;
    long value;  // -1: not given
  };
  Count counts[] = {
      {"--kokkos-num-threads", kThreadsFlag, "KOKKOS_NUM_THREADS", 1, kMostHostThreads, -1},
      {"--kokkos-device-id", "--kokkos-device-id", "KOKKOS_DEVICE_ID", 0, 4096, -1}};
  const Count& threads = counts[0];
  const auto checked = [&threads](const Count& c, const std::string& name, const std::string& text,
                                  bool variable) {
    const long value = whole_number(text, variable);
    if (value < c.min || value > c.most) {
      throw InputError(name + ": must be a whole number in [" + std::to_string(c.min) + ", " +
                       std::to_string(c.most) + "], got '" + text + "'" +
                       (&c == &threads && value > c.most
                            ? " (Kokkos' OpenMP backend holds at most " +
                                  std::to_string(kMostHostThreads) + " threads)"
                            : ""));
    }
    return value;
  };
  for (Count& c : counts) {
    const std::string flag = c.flag;
    const std::string given = std::string(c.given) + "=";
    for (std::size_t i = 1; i < args_.size(); ++i) {
      if (args_[i].rfind(given, 0) == 0)
        c.value = checked(c, flag, args_[i].substr(given.size()), false);
    }
    if (std::getenv(c.variable) == nullptr) continue;
    const std::string text = variable(c.variable);
    const long from_variable = checked(c, c.variable, text, true);
    if (c.value >= 0 && c.value != from_variable) {
      throw InputError(flag + "=" + std::to_string(c.value) + " and " + c.variable + "=" + text +
                       " disagree: give one of them, or the same count");
    }
    c.value = from_variable;
  }
#ifdef KOKKOS_ENABLE_OPENMP
  // Without a count of its own Kokkos takes the threads of an OpenMP parallel region:
  // OMP_NUM_THREADS (its first level), or else every processor the process may run on, and at
  // most OMP_THREAD_LIMIT.
  if (threads.value > 0) return;
  const std::string omp = variable("OMP_NUM_THREADS");
  const long asked = whole_number(omp.substr(0, omp.find(',')), true);
  const long limit = whole_number(variable("OMP_THREAD_LIMIT"), true);
  const long count = std::min(asked > 0 ? asked : available_processors(),
                              limit > 0 ? limit : std::numeric_limits<long>::max());
  if (count <= kMostHostThreads) return;
  const std::string most = std::to_string(kMostHostThreads), holds = "Kokkos' OpenMP backend holds";
  if (asked > 0) {
    throw InputError("OMP_NUM_THREADS=" + omp + ": its first level asks for more threads than " +
                     holds + " (" + most + "); set it, or --kokkos-num-threads=N, to at most " +
                     most);
  }
  throw InputError("this process may run on " + std::to_string(count) + " processors and " + holds +
                   " at most " + most +
                   " threads: set --kokkos-num-threads=N or OMP_NUM_THREADS to at most " + most);
#endif
}

bool KokkosArguments::help() const {
  return std::find(args_.begin() + 1, args_.end(), "--kokkos-help") != args_.end();
}

}  // namespace tilemm
