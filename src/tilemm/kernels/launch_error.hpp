// The one error a kernel's launch planning throws: the launch cannot run on this backend. Kernels
// know nothing of spec files, so the error says which part of the launch must change; the plan
// turns that into the spec key a user edits.
#pragma once

#include <stdexcept>
#include <string>

namespace tilemm::kernels {

/// The part of a launch that exceeds a backend's limit: the tile, the team's size, the split of K,
/// an extent of the product (m, n, k) that the kernel's int indices cannot reach, or the count of
/// moduli (ozaki: one too small for K, or data that needs more than the kernel has).
enum class LaunchLimit { Tile, TeamSize, SplitK, M, N, K, Moduli };

/// A launch (tile, team size, split of K) that this backend cannot run.
class LaunchError : public std::invalid_argument {
 public:
  LaunchError(LaunchLimit limit, const std::string& what)
      : std::invalid_argument(what), limit_(limit) {}
  LaunchLimit limit() const { return limit_; }

 private:
  LaunchLimit limit_;
};

}  // namespace tilemm::kernels
