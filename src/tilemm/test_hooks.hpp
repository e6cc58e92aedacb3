// A test's hook shared by the workspaces (workspace.hpp, distributed/summa.hpp): with
// TILEMM_TEST_WRONG_FROM_RUN=N in the environment, from its N-th run on each kernel run leaves
// C(0, 0) off by one, as a kernel that fails, or one whose result changes between runs, does. The
// suite uses it to show that a failed first run and a failed last timed run are both caught
// (tests/cli, tests/distributed). Unset, it does nothing.
#pragma once

#include <cstdlib>
#include <vector>

#include <Kokkos_Core.hpp>

namespace tilemm {

class WrongFromRun {
 public:
  /// The hook for a problem of `kernel_runs` kernel runs, read from the environment.
  explicit WrongFromRun(std::size_t kernel_runs) {
    if (const char* from = std::getenv("TILEMM_TEST_WRONG_FROM_RUN")) {
      from_ = std::atoi(from);
      runs_.assign(kernel_runs, 0);
    }
  }

  /// After each run of kernel run r, whose result is `c` (this rank's piece under MPI).
  template <class View>
  void after_run(std::size_t r, const View& c) {
    if (from_ <= 0 || ++runs_.at(r) < from_ || c.extent(0) == 0 || c.extent(1) == 0) return;
    const auto corner = Kokkos::subview(c, 0, 0);
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), corner);
    host() += 1;
    Kokkos::deep_copy(corner, host);
  }

 private:
  int from_ = 0;           // N; 0: off
  std::vector<int> runs_;  // runs of each kernel run so far
};

}  // namespace tilemm
