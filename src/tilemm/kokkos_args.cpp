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

KokkosArguments::KokkosArguments(int argc, char** argv, std::vector<std::string>& ours) {
  args_.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--kokkos-", 0) != 0) {
      ours.push_back(arg);
      continue;
    }
    // One spelling of the thread count, the one this Kokkos reads (4.x ignores the old one).
#if KOKKOS_VERSION < 30700
    if (arg.rfind("--kokkos-num-threads=", 0) == 0) arg.replace(0, 20, "--kokkos-threads");
#else
    if (arg.rfind("--kokkos-threads=", 0) == 0) arg.replace(0, 16, "--kokkos-num-threads");
#endif
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
    const char* flag;  // as given; args_ holds the spelling of this Kokkos (the constructor)
    const char* variable;
    long min, most;
    bool threads;  // the host's thread count, also spelled --kokkos-threads
    long value;    // -1: not given
  };
  Count counts[] = {{"--kokkos-num-threads", "KOKKOS_NUM_THREADS", 1, kMostHostThreads, true, -1},
                    {"--kokkos-device-id", "KOKKOS_DEVICE_ID", 0, 4096, false, -1}};
  const auto checked = [](const Count& c, const std::string& name, const std::string& text,
                          bool variable) {
    const long value = whole_number(text, variable);
    if (value < c.min || value > c.most) {
      throw InputError(name + ": must be a whole number in [" + std::to_string(c.min) + ", " +
                       std::to_string(c.most) + "], got '" + text + "'" +
                       (c.threads && value > c.most
                            ? " (Kokkos' OpenMP backend holds at most " +
                                  std::to_string(kMostHostThreads) + " threads)"
                            : ""));
    }
    return value;
  };
  for (Count& c : counts) {
    const std::string flag = c.flag;
    for (std::size_t i = 1; i < args_.size(); ++i) {
      const auto equals = args_[i].find('=');
      const std::string given = args_[i].substr(0, equals);
      if (equals == std::string::npos ||
          (given != flag && !(c.threads && given == "--kokkos-threads"))) {
        continue;
      }
      c.value = checked(c, flag, args_[i].substr(equals + 1), false);
    }
    const char* variable = std::getenv(c.variable);
    if (variable == nullptr) continue;
    const long from_variable = checked(c, c.variable, variable, true);
    if (c.value >= 0 && c.value != from_variable) {
      throw InputError(flag + "=" + std::to_string(c.value) + " and " + c.variable + "=" +
                       variable + " disagree: give one of them, or the same count");
    }
    c.value = from_variable;
  }
#ifdef KOKKOS_ENABLE_OPENMP
  // Without a count of its own Kokkos takes the threads of an OpenMP parallel region:
  // OMP_NUM_THREADS (its first level), or else every processor the process may run on, and at
  // most OMP_THREAD_LIMIT.
  if (counts[0].value > 0) return;
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const std::string value = omp ? omp : "";
  const long asked = whole_number(value.substr(0, value.find(',')), true);
  const long limit =
      whole_number(std::getenv("OMP_THREAD_LIMIT") ? std::getenv("OMP_THREAD_LIMIT") : "", true);
  const long threads = std::min(asked > 0 ? asked : available_processors(),
                                limit > 0 ? limit : std::numeric_limits<long>::max());
  if (threads <= kMostHostThreads) return;
  throw InputError(asked > 0 ? "OMP_NUM_THREADS=" + value +
                                   ": its first level asks for more threads than Kokkos' OpenMP "
                                   "backend holds (512); set it, or --kokkos-num-threads=N, to at "
                                   "most 512"
                             : "this process may run on " + std::to_string(threads) +
                                   " processors and Kokkos' OpenMP backend holds at most 512 "
                                   "threads: set --kokkos-num-threads=N or OMP_NUM_THREADS to at "
                                   "most 512");
#endif
}

bool KokkosArguments::help() const {
  return std::find(args_.begin() + 1, args_.end(), "--kokkos-help") != args_.end();
}

}  // namespace tilemm
