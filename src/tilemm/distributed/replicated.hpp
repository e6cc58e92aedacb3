// The whole problem on every rank of an MPI run at once (the key `distribution: replicated`): the
// spread of the same GEMM over the GPUs or nodes of a cluster, as an acceptance test wants it.
// Each run starts on every rank together; its time is the slowest rank's, which the result names,
// and its error the worst rank's. Kokkos-free: it wraps the one-process workspace.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilemm/distributed/world.hpp"
#include "tilemm/session.hpp"

namespace tilemm::distributed {

class ReplicatedSession final : public Session {
 public:
  explicit ReplicatedSession(std::unique_ptr<Session> local) : local_(std::move(local)) {}

  double run(std::size_t r) override {
    barrier();
    const auto [slowest, rank] = max_and_rank(local_->run(r));
    slowest_.push_back(rank);
    return slowest;
  }

  double error() const override { return max_over_ranks(local_->error()); }

  double freivalds_error() const override { return max_over_ranks(local_->freivalds_error()); }

  bool reference_valid() const override {
    return max_over_ranks(local_->reference_valid() ? 0.0 : 1.0) == 0.0;
  }

  /// Rank 0's C: every rank computed the same product.
  void write_c(const std::string& path) const override {
    if (distributed::rank() == 0) local_->write_c(path);
  }

  std::optional<DistributedFigures> distributed(std::size_t /*run*/,
                                                std::size_t timed) const override {
    DistributedFigures f;
    f.ranks = size();
    f.distribution = Spread::Replicated;
    f.comm = "none";
    f.comm_exposed = -1;  // nothing is communicated
    // The rank that was slowest in most of the timed runs.
    const std::size_t from = slowest_.size() - std::min(timed, slowest_.size());
    std::vector<int> counts(f.ranks, 0);
    for (std::size_t i = from; i < slowest_.size(); ++i) ++counts[slowest_[i]];
    f.slowest_rank = int(std::max_element(counts.begin(), counts.end()) - counts.begin());
    return f;
  }

 private:
  std::unique_ptr<Session> local_;
  std::vector<int> slowest_;  // per run: the slowest rank
};

}  // namespace tilemm::distributed
