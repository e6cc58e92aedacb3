#include "tilemm/sweep.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>

#include "tilemm/kernel_names.hpp"

namespace tilemm {

std::vector<KernelRun> expand_runs(const Sweep& sweep, std::int64_t most) {
  std::vector<KernelRun> runs;
  for (const auto& kernel : sweep.kernels) {
    if (kernel == "ozaki") {
      for (const auto moduli : sweep.moduli) {
        KernelRun run{kernel, {}};
        run.launch.moduli = static_cast<int>(moduli);
        runs.push_back(run);
      }
      continue;
    }
    if (!kernel_is_tiled(kernel)) {
      runs.push_back({kernel, {}});
      continue;
    }
    const auto listed = sweep.tiles.find(kernel);
    const std::vector<std::optional<Tiling>> tiles =
        listed == sweep.tiles.end()
            ? std::vector<std::optional<Tiling>>{std::nullopt}
            : std::vector<std::optional<Tiling>>(listed->second.begin(), listed->second.end());
    const bool splits = kernel_splits_k(kernel);
    for (const auto& tile : tiles) {
      for (const auto team_size : sweep.team_sizes) {
        for (const auto split_k : splits ? sweep.split_ks : std::vector<std::int64_t>{0}) {
          // split_k 1 splits nothing: one run, whatever split_tiles lists.
          for (const auto split_tiles :
               split_k > 1 ? sweep.split_tiles : std::vector<std::int64_t>{0}) {
            if (std::int64_t(runs.size()) > most) return runs;
            runs.push_back({kernel,
                            {tile, static_cast<int>(team_size), static_cast<int>(split_k),
                             static_cast<int>(split_tiles)}});
          }
        }
      }
    }
  }
  return runs;
}

std::int64_t count_results(const Sweep& sweep, std::size_t runs, std::int64_t most) {
  std::int64_t product = 1;
  const bool sized = !sweep.sizes.empty();
  for (const std::int64_t f :
       {std::int64_t(runs), std::int64_t(sized ? sweep.sizes.size() : sweep.m.size()),
        std::int64_t(sized ? 1 : sweep.n.size()), std::int64_t(sized ? 1 : sweep.k.size()),
        std::int64_t(sweep.precisions.size()), std::int64_t(sweep.layouts.size()),
        std::int64_t(sweep.distributions.size())}) {
    if (f == 0) return 0;
    product = product > (most + 1) / f ? most + 1 : product * f;
  }
  return std::min(product, most + 1);
}

std::vector<Problem> expand_problems(const Problem& base, const Sweep& sweep) {
  std::vector<std::array<std::int64_t, 3>> extents;
  for (const auto size : sweep.sizes) extents.push_back({size, size, size});
  for (const auto m : sweep.m) {
    for (const auto n : sweep.n) {
      for (const auto k : sweep.k) extents.push_back({m, n, k});
    }
  }
  std::vector<Problem> problems;
  for (const auto& [m, n, k] : extents) {
    for (const auto precision : sweep.precisions) {
      for (const auto layout : sweep.layouts) {
        for (const auto& distribution : sweep.distributions) {
          Problem problem = base;
          problem.runs.clear();
          for (const KernelRun& run : base.runs) {
            if (kernel_takes(run.kernel, precision)) problem.runs.push_back(run);
          }
          if (problem.runs.empty()) continue;
          problem.m = m;
          problem.n = n;
          problem.k = k;
          problem.precision = precision;
          problem.layout = layout;
          problem.distribution = distribution;
          problems.push_back(problem);
        }
      }
    }
  }
  return problems;
}

}  // namespace tilemm
