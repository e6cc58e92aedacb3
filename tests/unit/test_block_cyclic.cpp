// SUMMA's distribution as the plan computes it (distributed/block_cyclic.hpp), with no MPI: the K
// steps a problem's panel and block give, and the rows and columns of C each rank holds.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "tilemm/distributed/block_cyclic.hpp"

namespace tilemm::test {
namespace {

Problem summa(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t block,
              std::int64_t panel) {
  Problem p;
  p.m = m, p.n = n, p.k = k;
  p.distribution.block = block;
  p.distribution.panel = panel;
  return p;
}

TEST(BlockCyclic, KStepsStopAtBlockEdgesAndCoverK) {
  // Block 8, panel 5: steps of 5 and 3 in each block, and the last block's 3 of k = 19.
  using Steps = std::vector<std::pair<std::int64_t, std::int64_t>>;
  EXPECT_EQ(distributed::k_steps(summa(4, 4, 19, 8, 5)),
            (Steps{{0, 5}, {5, 3}, {8, 5}, {13, 3}, {16, 3}}));
  // A panel past the block is cut to it, and one past k to k.
  EXPECT_EQ(distributed::k_steps(summa(4, 4, 10, 4, 100)), (Steps{{0, 4}, {4, 4}, {8, 2}}));
  EXPECT_EQ(distributed::k_steps(summa(4, 4, 3, 1 << 30, 0)), (Steps{{0, 3}}));
}

TEST(BlockCyclic, LocalExtentsCoverCOnEveryGrid) {
  const Problem p = summa(37, 29, 41, 8, 5);
  for (const int ranks : {1, 2, 3, 4, 6}) {
    const auto [rows, cols] = distributed::grid_of(p, ranks);
    std::int64_t held = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      const auto [m, n] = distributed::local_extents(p, rank, ranks);
      EXPECT_GE(m, 0);
      EXPECT_GE(n, 0);
      held += m * n;
      // Rank (r, c) holds the rows of process row r and the columns of process column c.
      if (rank % cols == 0) EXPECT_EQ(n, (distributed::BlockCyclic{29, 8, cols, 0}.local()));
      if (rank / cols == 0) EXPECT_EQ(m, (distributed::BlockCyclic{37, 8, rows, 0}.local()));
    }
    EXPECT_EQ(held, 37 * 29) << ranks << " ranks";
  }
}

}  // namespace
}  // namespace tilemm::test
