// Sweeps: a problem's keys may list several values, and the problem then stands for every
// combination of them. The lists are read and checked by the spec reader; here they become kernel
// runs and problems.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tilemm/problem.hpp"

namespace tilemm {

/// The values one problem lists for each key of its sweep.
struct Sweep {
  std::vector<std::int64_t> m, n, k;
  /// `size`: m = n = k for each value, in place of the product of the m, n and k lists.
  std::vector<std::int64_t> sizes;
  std::vector<Precision> precisions;
  std::vector<Layout> layouts;
  std::vector<std::string> kernels;
  /// The tiles of each kernel that takes one; a kernel left out gets the backend's tile.
  std::map<std::string, std::vector<Tiling>> tiles;
  /// A 0 in these lists leaves the value to the backend.
  std::vector<std::int64_t> team_sizes, split_ks, split_tiles;
  /// ozaki's counts of moduli; a 0 leaves the count to the data.
  std::vector<std::int64_t> moduli{0};
  /// Every combination of the keys of an MPI run (grid, block, panel, comm, distribution).
  std::vector<Distribution> distributions{Distribution{}};
};

/// The kernel runs of a problem: each kernel with every combination of the launch values it takes.
/// Stops after `most` + 1 runs, which is enough to tell that there are too many.
std::vector<KernelRun> expand_runs(const Sweep& sweep, std::int64_t most);

/// The results of a sweep with `runs` kernel runs (the runs times every combination of m, n, k,
/// precision and layout), or `most` + 1 when there are more.
std::int64_t count_results(const Sweep& sweep, std::size_t runs, std::int64_t most);

/// `base`, runs included, for every combination of m, n, k (or each size), precision, layout and
/// distribution; each with the runs of the kernels that take its precision (kernel_takes), and
/// none where that leaves no run.
std::vector<Problem> expand_problems(const Problem& base, const Sweep& sweep);

}  // namespace tilemm
