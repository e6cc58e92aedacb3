// Command lines shared by Kokkos and a tilemm program: Kokkos' flags (--kokkos-*) go to Kokkos, the
// rest to the program's own parser.
#pragma once

#include <string>
#include <vector>

namespace tilemm {

/// Kokkos' share of a command line, kept alive for Kokkos::initialize (which may edit it).
class KokkosArguments {
 public:
  /// Takes Kokkos' flags from argv[1..argc) and appends the others to `ours`. The thread count is
  /// spelled --kokkos-num-threads whatever the Kokkos version: Kokkos before 3.7 receives it as
  /// --kokkos-threads, its own spelling.
  KokkosArguments(int argc, char** argv, std::vector<std::string>& ours);
  KokkosArguments(const KokkosArguments&) = delete;
  KokkosArguments& operator=(const KokkosArguments&) = delete;

  /// Throws InputError when a --kokkos-* flag is not one of this Kokkos, when the thread count or
  /// the device id is not a whole number (as a flag or as Kokkos' variable), or when a flag and
  /// the variable that sets the same disagree. Kokkos checks the other values itself as it starts.
  void check() const;

  /// Whether Kokkos was asked for its help (--kokkos-help), which Kokkos::initialize prints.
  bool help() const;

  int& argc() { return argc_; }
  char** argv() { return argv_.data(); }

 private:
  /// Kokkos' variables of whole numbers, alone and against the flags.
  void check_variables() const;

  std::vector<std::string> flags_;  // Kokkos' flags as the user spelled them
  std::vector<std::string> args_;   // argv[0], then Kokkos' flags as this Kokkos spells them
  std::vector<char*> argv_;         // pointers into args_, null-terminated
  int argc_ = 0;
};

/// Throws InputError when Kokkos' OpenMP backend started on a thread count it cannot run on; call
/// it once Kokkos has started, before anything runs.
void check_host_threads();

/// Throws RuntimeFailure when the stack of this thread (ulimit -s) or of the OpenMP threads Kokkos
/// will start (OMP_STACKSIZE, else the threads' default) is too small for a run, which would crash
/// or stop the OpenMP runtime instead; call it before Kokkos starts.
void check_stacks();

}  // namespace tilemm
