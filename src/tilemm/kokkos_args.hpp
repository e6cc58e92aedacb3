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

  /// Throws InputError when a --kokkos-* flag is not one of this Kokkos (Kokkos would ignore it or
  /// only warn), when a flag or one of Kokkos' variables has a value Kokkos cannot read (a count
  /// out of range, a boolean that is none: Kokkos would abort or throw as it starts), when a flag
  /// and its variable disagree, or when Kokkos' OpenMP backend would start more threads than it
  /// holds: the flag's or the variable's count, else OMP_NUM_THREADS, else the processors this
  /// process may run on (it would crash).
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
