#include "tilemm/kokkos_args.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdlib>

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

void KokkosArguments::check() const {
  struct Count {
    const char* flag;
    long min;
  };
  // Kokkos before 3.7 sees --kokkos-threads (translated above); one program runs on at most a few
  // thousand threads, and a larger count has crashed Kokkos 3.4's OpenMP backend.
  static const Count counts[] = {
      {"--kokkos-num-threads=", 1}, {"--kokkos-threads=", 1}, {"--kokkos-device-id=", 0}};
  constexpr long kMost = 4096;
  for (std::size_t i = 1; i < args_.size(); ++i) {
    for (const Count& c : counts) {
      const std::string flag = c.flag;
      if (args_[i].rfind(flag, 0) != 0) continue;
      const std::string text = args_[i].substr(flag.size());
      // Digits alone, and few enough that strtol cannot overflow.
      const bool digits = !text.empty() && text.size() <= 9 &&
                          text.find_first_not_of("0123456789") == std::string::npos;
      const long value = digits ? std::strtol(text.c_str(), nullptr, 10) : -1;
      if (!digits || value < c.min || value > kMost) {
        const std::string shown = flag == "--kokkos-threads=" ? "--kokkos-num-threads=" : flag;
        throw InputError(shown.substr(0, shown.size() - 1) + ": must be a whole number in [" +
                         std::to_string(c.min) + ", " + std::to_string(kMost) + "], got '" + text +
                         "'");
      }
    }
  }
}

bool KokkosArguments::help() const {
  return std::find(args_.begin() + 1, args_.end(), "--kokkos-help") != args_.end();
}

}  // namespace tilemm
