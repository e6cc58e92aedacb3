// Command lines shared by Kokkos and a tilemm program: Kokkos' flags (--kokkos-*) go to Kokkos, the
// rest to the program's own parser.
#pragma once

#include <string>
#include <vector>

namespace tilemm {

/// Kokkos' share of a command line, kept alive for Kokkos::initialize (which may edit it).
class KokkosArguments {
 public:
  /// Takes Kokkos' flags from argv[1..argc) and appends the others to `ours`. Kokkos before 3.7
  /// spells --kokkos-num-threads as --kokkos-threads: that spelling is translated, so that scripts
  /// use one spelling whatever the Kokkos version.
  KokkosArguments(int argc, char** argv, std::vector<std::string>& ours);
  KokkosArguments(const KokkosArguments&) = delete;
  KokkosArguments& operator=(const KokkosArguments&) = delete;

  /// Throws InputError when a count Kokkos takes (--kokkos-num-threads=N, --kokkos-device-id=N,
  /// or their variables KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID) is not a whole number in range
  /// (Kokkos would abort or throw as it starts), when a flag and its variable disagree, or when
  /// Kokkos' OpenMP backend would start more threads than it holds: the flag's or the variable's
  /// count, else OMP_NUM_THREADS, else the processors this process may run on (it would crash).
  void check() const;

  /// Whether Kokkos was asked for its help (--kokkos-help), which Kokkos::initialize prints.
  bool help() const;

  int& argc() { return argc_; }
  char** argv() { return argv_.data(); }

 private:
  std::vector<std::string> args_;  // argv[0], then Kokkos' flags
  std::vector<char*> argv_;        // pointers into args_, null-terminated
  int argc_ = 0;
};

}  // namespace tilemm
