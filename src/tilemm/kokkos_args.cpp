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
  // Each count Kokkos takes, from its flag or its variable: a bad one ends Kokkos::initialize in an
  // exception or an abort of its own (KOKKOS_NUM_THREADS=0: abort), and Kokkos 3.4 refuses a flag
  // and a variable that disagree.
  struct Count {
    const char* flag;
    const char* old_flag;  // the spelling of Kokkos before 3.7 (translated above), or null
    const char* variable;
    long min, most;
    long value;  // -1: not given
  };
  Count counts[] = {
      {"--kokkos-num-threads=", "--kokkos-threads=", "KOKKOS_NUM_THREADS", 1, kMostHostThreads, -1},
      {"--kokkos-device-id=", nullptr, "KOKKOS_DEVICE_ID", 0, 4096, -1}};
  const auto checked = [](const Count& c, const std::string& name, const std::string& text) {
    const long value = whole_number(text);
    if (value < c.min || value > c.most) {
      throw InputError(name + ": must be a whole number in [" + std::to_string(c.min) + ", " +
                       std::to_string(c.most) + "], got '" + text + "'" +
                       (c.most == kMostHostThreads && value > c.most
                            ? " (Kokkos' OpenMP backend holds at most 512 threads)"
                            : ""));
    }
    return value;
  };
  for (Count& c : counts) {
    const std::string flag = c.flag;
    const std::string name = flag.substr(0, flag.size() - 1);
    for (std::size_t i = 1; i < args_.size(); ++i) {
      const bool old_spelling = c.old_flag && args_[i].rfind(c.old_flag, 0) == 0;
      if (args_[i].rfind(flag, 0) != 0 && !old_spelling) continue;
      c.value = checked(c, name, args_[i].substr(args_[i].find('=') + 1));
    }
    const char* variable = std::getenv(c.variable);
    if (variable == nullptr) continue;
    const long from_variable = checked(c, c.variable, variable);
    if (c.value >= 0 && c.value != from_variable) {
      throw InputError(name + "=" + std::to_string(c.value) + " and " + c.variable + "=" +
                       variable + " disagree: give one of them, or the same count");
    }
    c.value = from_variable;
  }
#ifdef KOKKOS_ENABLE_OPENMP
  // Without a count of its own Kokkos takes OpenMP's: OMP_NUM_THREADS (its first level), or else
  // every processor the process may run on.
  if (counts[0].value > 0) return;
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
