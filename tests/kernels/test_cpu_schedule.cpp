// The CPU schedule's host functions (kernels/cpu/): the block sizes the caches give, the threads'
// grid and the default tile.
#include <gtest/gtest.h>

#include <cstddef>

#include "tilemm/kernels/cpu/blocking.hpp"

namespace tilemm::test {
namespace {

namespace cpu = kernels::cpu;

/// The caches of the 2-core development machine and of the lent machines' host (Intel Xeon,
/// CPU model 207): 48 KiB 12-way L1d, 2 MiB 16-way L2, a 300 MiB 20-way L3, 64-byte lines.
constexpr CpuCaches kXeon{48 * 1024, 2048 * 1024, 300 * 1024 * 1024, 12, 16, 20, 64};

TEST(CpuBlocking, ModelOnTheXeon) {
  // L1: B's micro-panel takes 11 * 32 / 44 = 8 ways (float) or 11 * 16 / 28 = 6 (double) of 4 KiB.
  const cpu::Blocks f = cpu::blocks_for(kXeon, 4, 12, 32), d = cpu::blocks_for(kXeon, 8, 12, 16);
  EXPECT_EQ(f.kc, 256);
  EXPECT_EQ(d.kc, 192);
  // L2: B~'s block in a quarter of 2 MiB.
  EXPECT_EQ(f.nb, 512);
  EXPECT_EQ(d.nb, 336);
  EXPECT_GT(f.nc, 4096);
  EXPECT_EQ(f.nc % 32, 0);
  EXPECT_EQ(d.nc % 16, 0);
}

TEST(CpuBlocking, UnreportedCachesAreAssumed) {
  const cpu::Blocks none = cpu::blocks_for({}, 4, 12, 32);
  const cpu::Blocks assumed = cpu::blocks_for(cpu::kAssumedCaches, 4, 12, 32);
  EXPECT_EQ(none.kc, assumed.kc);
  EXPECT_EQ(none.nb, assumed.nb);
  EXPECT_EQ(none.nc, assumed.nc);
  // Caches too small for the model still give one unit of each block.
  const cpu::Blocks tiny = cpu::blocks_for({1024, 2048, 4096, 2, 2, 2, 64}, 8, 12, 16);
  EXPECT_EQ(tiny.kc, 8);
  EXPECT_EQ(tiny.nb, 16);
  EXPECT_GE(tiny.nc, 16);
  EXPECT_EQ(tiny.nc % 16, 0);
}

TEST(CpuBlocking, ThreadGridBalancesTheBusiestThread) {
  // 2048 rows are 171 micro-rows of 12, 2048 columns 64 of 32: on 2 threads rows split (86 + 85),
  // on 16 threads too (11 a thread, packing 11 micro-rows of A each).
  EXPECT_EQ(cpu::thread_grid(171, 64, 2).rows, 2);
  EXPECT_EQ(cpu::thread_grid(171, 64, 16).rows, 16);
  // One micro-row: the threads split the columns.
  EXPECT_EQ(cpu::thread_grid(1, 64, 4).cols, 4);
  // 7 threads, a prime: a row or a column of threads.
  const cpu::ThreadGrid seven = cpu::thread_grid(5, 100, 7);
  EXPECT_EQ(seven.rows * seven.cols, 7);
}

TEST(CpuBlocking, DefaultTileFitsTheScratch) {
  const cpu::Blocks b = cpu::blocks_for(kXeon, 4, 12, 32);
  constexpr std::size_t kScratch = 20 << 20;
  // 2048^3 on 2 threads: one tile of all of C, K in 256-deep blocks.
  cpu::TileShape t = cpu::default_tile(2048, 2048, 2048, b, 2, 1, kScratch, 4);
  EXPECT_EQ(t.bm, 2052);
  EXPECT_EQ(t.bn, 2048);
  EXPECT_EQ(t.kc, 256);
  // K = 300: two even blocks of 152 rather than 256 and 44.
  EXPECT_EQ(cpu::default_tile(2048, 2048, 300, b, 2, 1, kScratch, 4).kc, 152);
  // A tall C on one thread: all of its rows where they fit the scratch, bands where they do not.
  EXPECT_EQ(cpu::default_tile(20000, 64, 64, b, 1, 1, kScratch, 4).bm, 20004);
  // (40008 rows of A~, 256 deep, take 39 MiB.)
  t = cpu::default_tile(40000, 64, 1024, b, 1, 1, kScratch, 4);
  EXPECT_LT(t.bm, 40000);
  EXPECT_LE(cpu::scratch_bytes(t, b, 1, 4), kScratch);
  // Teams of one thread on 4 threads: at least 4 tiles.
  t = cpu::default_tile(200, 64, 64, b, 1, 4, kScratch, 4);
  EXPECT_GE(cpu::micro_count(200, t.bm) * cpu::micro_count(64, t.bn), 4);
  // Scratch of 1 MiB: columns narrowed until B~ and each thread's A~ fit.
  t = cpu::default_tile(4096, 4096, 4096, b, 2, 1, 1 << 20, 4);
  EXPECT_LE(cpu::scratch_bytes(t, b, 2, 4), std::size_t(1) << 20);
}

}  // namespace
}  // namespace tilemm::test
