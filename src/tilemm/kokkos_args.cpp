#include "tilemm/kokkos_args.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
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
#if KOKKOS_VERSION < 30700
    if (arg.rfind("--kokkos-num-threads", 0) == 0) arg.replace(0, 20, "--kokkos-threads");
#endif
    args_.push_back(arg);
  }
  for (auto& a : args_) argv_.push_back(a.data());
  argv_.push_back(nullptr);
  argc_ = static_cast<int>(args_.size());
}

namespace {

// Kokkos' OpenMP backend keeps its threads' data in an array of 512 (OpenMPTraits::MAX_THREAD_COUNT
// in Kokkos 3.4 to 4.6) and does not check the count against it: 513 threads or more end the
// program in a segmentation fault as Kokkos starts.
constexpr long kMostHostThreads = 512;

/// Digits alone, and few enough that strtol cannot overflow; -1 otherwise.
long whole_number(const std::string& text) {
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
    const long count = known ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (known) return count;
    if (errno != EINVAL) break;
  }
#endif
  return long(std::thread::hardware_concurrency());
}

}  // namespace

void KokkosArguments::check() const {
  struct Count {
    const char* flag;
    long min, most;
    bool threads;  // the host's thread count
  };
  // Kokkos before 3.7 sees --kokkos-threads (translated above).
  static const Count counts[] = {{"--kokkos-num-threads=", 1, kMostHostThreads, true},
                                 {"--kokkos-threads=", 1, kMostHostThreads, true},
                                 {"--kokkos-device-id=", 0, 4096, false}};
  bool threads_set = false;
  for (std::size_t i = 1; i < args_.size(); ++i) {
    for (const Count& c : counts) {
      const std::string flag = c.flag;
      if (args_[i].rfind(flag, 0) != 0) continue;
      const std::string text = args_[i].substr(flag.size());
      const long value = whole_number(text);
      const std::string shown = flag == "--kokkos-threads=" ? "--kokkos-num-threads=" : flag;
      if (value < c.min || value > c.most) {
        throw InputError(
            shown.substr(0, shown.size() - 1) + ": must be a whole number in [" +
            std::to_string(c.min) + ", " + std::to_string(c.most) + "], got '" + text + "'" +
            (c.threads && value > c.most ? " (Kokkos' OpenMP backend holds at most 512 threads)"
                                         : ""));
      }
      threads_set = threads_set || c.threads;
    }
  }
#ifdef KOKKOS_ENABLE_OPENMP
  // Without the flag Kokkos takes OpenMP's count: OMP_NUM_THREADS (its first level), or else every
  // processor the process may run on.
  if (threads_set) return;
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const std::string first = omp ? std::string(omp).substr(0, std::string(omp).find(',')) : "";
  const long asked = whole_number(first);
  if (asked > kMostHostThreads) {
    throw InputError("OMP_NUM_THREADS=" + first +
                     ": Kokkos' OpenMP backend holds at most 512 threads; set it, or "
                     "--kokkos-num-threads=N, to at most 512");
  }
  const long processors = available_processors();
  if (asked <= 0 && processors > kMostHostThreads) {
    throw InputError("this process may run on " + std::to_string(processors) +
                     " processors and Kokkos' OpenMP backend holds at most 512 threads: set "
                     "--kokkos-num-threads=N or OMP_NUM_THREADS to at most 512");
  }
#endif
}

bool KokkosArguments::help() const {
  return std::find(args_.begin() + 1, args_.end(), "--kokkos-help") != args_.end();
}

}  // namespace tilemm
