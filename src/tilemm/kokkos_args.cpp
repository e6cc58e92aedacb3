#include "tilemm/kokkos_args.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <set>
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

/// The count a text gives as OpenMP runtimes and Kokkos read it: digits alone (leading zeros too),
/// and for a variable, spaces around them and a + before them. -1 when it is not such a count; a
/// count past what a long holds reads as the largest long, so that it is refused as too large
/// (OMP_NUM_THREADS=4294967296 made libgomp crash, and 4294967809 started 513 threads).
long whole_number(std::string text, bool variable = false) {
  if (variable) {
    const auto first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
    text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
    if (!text.empty() && text[0] == '+') text.erase(0, 1);
  }
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  text.erase(0, std::min(text.find_first_not_of('0'), text.size() - 1));
  return text.size() > 18 ? std::numeric_limits<long>::max() : std::stol(text);
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

/// How a Kokkos flag takes its value.
enum class Takes {
  nothing,     // --kokkos-help
  boolean,     // --kokkos-disable-warnings or --kokkos-disable-warnings=BOOL (Kokkos 3.7 on)
  count,       // --kokkos-device-id=INT
  counts,      // --kokkos-num-devices=INT[,INT] (Kokkos before 4.3)
  text,        // --kokkos-tools-args=STR
  device_map,  // --kokkos-map-device-id-by=mpi_rank|random
};

// Kokkos versions as KOKKOS_VERSION spells them (30700 is 3.7.0).
constexpr int kFirstVersion = 0, kNoLastVersion = 1000000;

struct KokkosOption {
  const char* name;  // a flag, or a variable of the environment
  Takes takes;
  // The Kokkos versions that read it: [since, until).
  int since = kFirstVersion, until = kNoLastVersion;
  long min = 0, most = 0;  // a count's range
};

// The flags and variables of Kokkos, as its --kokkos-help and its sources list them, each with the
// versions that read it: 3.7 made the switches booleans (=BOOL) and added device maps and tools
// libs; 4.3 dropped the flags and variables 3.7 had deprecated. Kokkos 3 ignores a flag it does not
// know, Kokkos 4 warns of it, and the run goes on without what was asked (a misspelled
// --kokkos-num-thread=1 ran on every processor); a value it cannot read ends Kokkos::initialize in
// an exception ("stoi") or an abort.
constexpr int k37 = 30700, k43 = 40300;
constexpr KokkosOption kFlags[] = {
    {"--kokkos-help", Takes::nothing},
    {"--kokkos-disable-warnings", Takes::nothing, kFirstVersion, k37},
    {"--kokkos-disable-warnings", Takes::boolean, k37},
    {"--kokkos-tune-internals", Takes::nothing, kFirstVersion, k37},
    {"--kokkos-tune-internals", Takes::boolean, k37},
    {"--kokkos-print-configuration", Takes::boolean, k37},
    {kThreadsFlag, Takes::count, kFirstVersion, kNoLastVersion, 1, kMostHostThreads},
    {"--kokkos-numa", Takes::count, kFirstVersion, k43, 1, 4096},
    {"--kokkos-device-id", Takes::count, kFirstVersion, kNoLastVersion, 0, 4096},
    {"--kokkos-device", Takes::count, kFirstVersion, k43, 0, 4096},
    {"--kokkos-num-devices", Takes::counts, kFirstVersion, k43, 1, 4096},
    {"--kokkos-ndevices", Takes::counts, kFirstVersion, k43, 1, 4096},
    {"--kokkos-map-device-id-by", Takes::device_map, k37},
    {"--kokkos-tools-libs", Takes::text, k37},
    {"--kokkos-tools-library", Takes::text},
    {"--kokkos-tools-args", Takes::text},
    {"--kokkos-tools-help", Takes::nothing},
};
constexpr KokkosOption kVariables[] = {
    {"KOKKOS_NUM_THREADS", Takes::count, kFirstVersion, kNoLastVersion, 1, kMostHostThreads},
    {"KOKKOS_DEVICE_ID", Takes::count, kFirstVersion, kNoLastVersion, 0, 4096},
    {"KOKKOS_DISABLE_WARNINGS", Takes::boolean, k37},
    {"KOKKOS_PRINT_CONFIGURATION", Takes::boolean, k37},
    {"KOKKOS_TUNE_INTERNALS", Takes::boolean, k37},
    {"KOKKOS_MAP_DEVICE_ID_BY", Takes::device_map, k37},
    {"KOKKOS_NUMA", Takes::count, kFirstVersion, k43, 1, 4096},
    {"KOKKOS_NUM_DEVICES", Takes::count, kFirstVersion, k43, 1, 4096},
    {"KOKKOS_RAND_DEVICES", Takes::count, kFirstVersion, k43, 1, 4096},
    {"KOKKOS_SKIP_DEVICE", Takes::count, kFirstVersion, k43, 0, 4096},
};

/// Whether the Kokkos this program is built with reads `option`.
constexpr bool read_here(const KokkosOption& option) {
  return option.since <= KOKKOS_VERSION && KOKKOS_VERSION < option.until;
}

/// The row of `table` that this Kokkos reads for `name`; null when it reads none.
template <std::size_t N>
const KokkosOption* find_option(const KokkosOption (&table)[N], const std::string& name) {
  const auto row = std::find_if(std::begin(table), std::end(table), [&](const KokkosOption& o) {
    return read_here(o) && name == o.name;
  });
  return row == std::end(table) ? nullptr : row;
}

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100);
}

std::string lower_case(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

/// Throws InputError, naming `who` (the flag or the variable), when `value` is not what `option`
/// takes.
void check_value(const KokkosOption& option, const std::string& who, const std::string& value,
                 bool variable) {
  const auto refuse = [&](const std::string& expected, const std::string& note = "") {
    throw InputError(who + ": must be " + expected + ", got '" + value + "'" + note);
  };
  const std::string range =
      "a whole number in [" + std::to_string(option.min) + ", " + std::to_string(option.most) + "]";
  const auto in_range = [&](const std::string& text) {
    const long count = whole_number(text, variable);
    return count >= option.min && count <= option.most;
  };
  switch (option.takes) {
    case Takes::nothing:
      throw InputError(who + ": takes no value, got '" + value + "'");
    case Takes::boolean:
      if (!std::set<std::string>{"yes", "true", "1", "no", "false", "0"}.count(lower_case(value)))
        refuse("yes, true, 1, no, false or 0");
      break;
    case Takes::count:
      if (!in_range(value)) {
        const bool too_many_threads =
            option.most == kMostHostThreads && whole_number(value, variable) > option.most;
        refuse(range, too_many_threads ? " (Kokkos' OpenMP backend holds at most " +
                                             std::to_string(kMostHostThreads) + " threads)"
                                       : "");
      }
      break;
    case Takes::counts: {  // the devices to use, then one to skip
      const auto comma = value.find(',');
      if (!in_range(value.substr(0, comma)) ||
          (comma != std::string::npos && whole_number(value.substr(comma + 1)) < 0))
        refuse(range + ", optionally followed by ,INT (a device to skip)");
      break;
    }
    case Takes::text:
      if (value.empty()) throw InputError(who + ": an empty value");
      break;
    case Takes::device_map:
      if (value != "mpi_rank" && value != "random") refuse("mpi_rank or random");
      break;
  }
}

/// Throws InputError when `arg`, a --kokkos-* flag, is not one of this Kokkos, or its value is not
/// one Kokkos reads.
void check_flag(const std::string& arg) {
  const auto equals = arg.find('=');
  // The thread count in either spelling is the one this Kokkos reads (the constructor), and
  // messages spell it as tilemm's documentation does.
  const bool threads = arg.compare(0, equals, "--kokkos-num-threads") == 0 ||
                       arg.compare(0, equals, "--kokkos-threads") == 0;
  const std::string flag = threads ? kThreadsFlag : arg.substr(0, equals);
  const std::string name = threads ? "--kokkos-num-threads" : flag;
  const KokkosOption* known = find_option(kFlags, flag);
  if (known == nullptr) {
    std::string names;
    for (const auto& o : kFlags) {
      if (!read_here(o)) continue;
      names += std::string(names.empty() ? "" : ", ") +
               (o.name == std::string(kThreadsFlag) ? "--kokkos-num-threads" : o.name);
    }
    throw InputError(name + ": not an option of Kokkos " + kokkos_version() +
                     " (its options: " + names + "; see tilemm --kokkos-help)");
  }
  if (equals != std::string::npos) {
    check_value(*known, name, arg.substr(equals + 1), false);
  } else if (known->takes != Takes::nothing && known->takes != Takes::boolean) {
    throw InputError(name + ": needs a value (" + name + "=...)");
  }
}

}  // namespace

void KokkosArguments::check() const {
  for (std::size_t i = 1; i < args_.size(); ++i) check_flag(args_[i]);
  for (const auto& v : kVariables) {
    if (read_here(v) && std::getenv(v.name) != nullptr)
      check_value(v, v.name, variable(v.name), true);
  }
#if KOKKOS_VERSION < 40300
  if (std::getenv("KOKKOS_NUM_DEVICES") != nullptr && std::getenv("KOKKOS_RAND_DEVICES") != nullptr)
    throw InputError("KOKKOS_NUM_DEVICES and KOKKOS_RAND_DEVICES are both set: Kokkos takes one");
#endif
  // The counts that have a flag and a variable, both checked above (a bad variable would end
  // Kokkos::initialize in an exception or an abort of its own: KOKKOS_NUM_THREADS=0 aborts).
  // Kokkos 3.4 refuses a flag and a variable that disagree (4.x takes the flag).
  struct Count {
    const char* flag;   // as the user spells it
    const char* given;  // as args_ holds it (the constructor)
    const char* variable;
    long value;  // -1: not given
  };
  Count counts[] = {{"--kokkos-num-threads", kThreadsFlag, "KOKKOS_NUM_THREADS", -1},
                    {"--kokkos-device-id", "--kokkos-device-id", "KOKKOS_DEVICE_ID", -1}};
  const Count& threads = counts[0];
  for (Count& c : counts) {
    const std::string flag = c.flag;
    const std::string given = std::string(c.given) + "=";
    for (std::size_t i = 1; i < args_.size(); ++i) {  // checked above: the last one counts
      if (args_[i].rfind(given, 0) == 0) c.value = whole_number(args_[i].substr(given.size()));
    }
    if (std::getenv(c.variable) == nullptr) continue;
    const std::string text = variable(c.variable);
    const long from_variable = whole_number(text, true);
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
