// The CPU schedule's host functions (kernels/cpu/): the block sizes the caches give, the default
// tile and its scratch, the packed panels from every pair of strides with ragged edges, and
// the micro-kernel against a long double reference with beta 0 on a poisoned C, beta != 0, and
// blocks cut by C's edge. (The whole schedule through Kokkos: test_register_tiled.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tilemm/kernels/cpu/blocking.hpp"
#include "tilemm/kernels/cpu/micro_kernel.hpp"
#include "tilemm/kernels/cpu/packing.hpp"
#include "tilemm/kernels/host_vector.hpp"

namespace tilemm::test {
namespace {

using kernels::kCpuTileCols;
using kernels::kCpuTileRows;
namespace cpu = kernels::cpu;

/// The caches of the 2-core development machine and of the lent machines' host (Intel Xeon,
/// CPU model 207): 48 KiB 12-way L1d, 2 MiB 16-way L2, a 300 MiB 20-way L3, 64-byte lines.
constexpr CpuCaches kXeon{48 * 1024, 2048 * 1024, 300 * 1024 * 1024, 12, 16, 20, 64};

TEST(CpuBlocking, ModelOnTheXeon) {
  // L1: B's micro-panel takes 11 * 32 / 44 = 8 ways of 4 KiB in float (12x32) and 11 * 24 / 32 =
  // 8 in double (8x24): 32 KiB, 256 steps of 32 floats and 170 of 24 doubles, 168 in multiples
  // of 8.
  const cpu::Blocks f = cpu::blocks_for(kXeon, 4, 12, 32), d = cpu::blocks_for(kXeon, 8, 8, 24);
  EXPECT_EQ(f.kc, 256);
  EXPECT_EQ(d.kc, 168);
  // L2: B~'s block in a quarter of 2 MiB.
  EXPECT_EQ(f.nb, 512);
  EXPECT_EQ(d.nb, 384);
  EXPECT_GT(f.nc, 4096);
  EXPECT_EQ(f.nc % 32, 0);
  EXPECT_EQ(d.nc % 24, 0);
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

TEST(CpuBlocking, DefaultTileFitsTheScratch) {
  const cpu::Blocks b = cpu::blocks_for(kXeon, 4, 12, 32);
  constexpr std::size_t kScratch = 20 << 20;
  // 2048^3 on one team: one tile of all of C, K in 256-deep blocks.
  cpu::TileShape t = cpu::default_tile(2048, 2048, 2048, b, 1, kScratch, 4);
  EXPECT_EQ(t.bm, 2052);
  EXPECT_EQ(t.bn, 2048);
  EXPECT_EQ(t.kc, 256);
  // K = 300: two even blocks of 152 rather than 256 and 44.
  EXPECT_EQ(cpu::default_tile(2048, 2048, 300, b, 1, kScratch, 4).kc, 152);
  // A tall C: all of its rows where they fit the scratch, bands where they do not.
  EXPECT_EQ(cpu::default_tile(20000, 64, 64, b, 1, kScratch, 4).bm, 20004);
  // (40008 rows of A~, 256 deep, take 39 MiB.)
  t = cpu::default_tile(40000, 64, 1024, b, 1, kScratch, 4);
  EXPECT_LT(t.bm, 40000);
  EXPECT_LE(cpu::scratch_bytes(t, b, 4), kScratch);
  // 4 teams at once: at least 4 tiles.
  t = cpu::default_tile(200, 64, 64, b, 4, kScratch, 4);
  EXPECT_GE(cpu::micro_count(200, t.bm) * cpu::micro_count(64, t.bn), 4);
  // Scratch of 1 MiB: A~'s rows and B~'s columns narrowed until both fit.
  t = cpu::default_tile(4096, 4096, 4096, b, 1, 1 << 20, 4);
  EXPECT_LE(cpu::scratch_bytes(t, b, 4), std::size_t(1) << 20);
}

/// A rows x cols matrix of distinct values in memory with strides (rs, cs) from `data`.
template <class Scalar>
cpu::Strided<Scalar> fill(std::vector<Scalar>& memory, int rows, int cols, std::ptrdiff_t rs,
                          std::ptrdiff_t cs) {
  memory.assign(std::size_t((rows - 1) * rs + (cols - 1) * cs + 1), Scalar(-7));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) memory[i * rs + j * cs] = Scalar(1 + i + 1000 * j);
  return {memory.data(), rs, cs};
}

// A~ from rows contiguous along K (a transpose), columns contiguous along M (a copy), and neither.
TEST(CpuPacking, PanelsFromEveryStrideWithRaggedEdges) {
  constexpr int kWidth = 12;
  // 3 micro-panels, the last 5 rows of 12; steps in whole vectors and 5 more (by vectors and one
  // at a time where lines are contiguous).
  const int rows = 29, depth = 37;
  // Rows contiguous along K, steps contiguous along the rows, neither (a transposed view of a
  // padded matrix).
  for (const auto& [rs, cs] :
       {std::pair<std::ptrdiff_t, std::ptrdiff_t>{41, 1}, {1, 31}, {3, 97}}) {
    std::vector<double> memory;
    const cpu::Strided<double> a = fill(memory, rows, depth, rs, cs);
    std::vector<double> packed(3 * kWidth * depth, -1.0);
    // The second and third panels only, as a thread packs its share.
    cpu::pack_a<kWidth>(a, rows, depth, 1, 2, packed.data());
    for (int q = 0; q < 3; ++q) {
      for (int p = 0; p < depth; ++p) {
        for (int i = 0; i < kWidth; ++i) {
          const double got = packed[(q * depth + p) * kWidth + i];
          const int row = q * kWidth + i;
          const double want = q == 0 ? -1.0 : row < rows ? a(row, p) : 0.0;
          ASSERT_EQ(got, want) << "strides " << rs << "," << cs << " panel " << q << " step " << p
                               << " line " << i;
        }
      }
    }
  }
}

// B~ from B stored by rows (a copy) and by columns (a transpose).
TEST(CpuPacking, BPanelsAreColumnsOfB) {
  constexpr int kWidth = 8;  // fewer columns than a float vector's lanes with AVX-512
  const int depth = 37, cols = 19;
  for (const auto& [rs, cs] : {std::pair<std::ptrdiff_t, std::ptrdiff_t>{23, 1}, {1, 40}}) {
    std::vector<float> memory;
    const cpu::Strided<float> b = fill(memory, depth, cols, rs, cs);
    std::vector<float> packed(3 * kWidth * depth, -1.0f);
    cpu::pack_b<kWidth>(b, cols, depth, 0, 3, packed.data());
    for (int q = 0; q < 3; ++q)
      for (int p = 0; p < depth; ++p)
        for (int j = 0; j < kWidth; ++j) {
          const int col = q * kWidth + j;
          ASSERT_EQ(packed[(q * depth + p) * kWidth + j], col < cols ? b(p, col) : 0.0f)
              << "strides " << rs << "," << cs << " column " << col << " step " << p;
        }
  }
}

/// The micro-kernel on random panels `depth` deep into a C of rows x cols inside an MR x NR block
/// (ldc wider than NR), against alpha A B + beta C0 in long double with the (depth + 2) eps bound;
/// beta 0 on a C of NaN; what lies outside the rows and columns untouched.
template <class Scalar>
void check_micro_kernel(int depth, int rows, int cols, Scalar alpha, Scalar beta) {
  constexpr int MR = kCpuTileRows<Scalar>, NR = kCpuTileCols<Scalar>;
  constexpr std::ptrdiff_t ldc = NR + 5;
  std::mt19937 random(depth * 131 + rows * 7 + cols);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Scalar> a(std::size_t(MR) * depth), b(std::size_t(NR) * depth);
  for (Scalar& x : a) x = Scalar(value(random));
  for (Scalar& x : b) x = Scalar(value(random));
  const Scalar poison = std::numeric_limits<Scalar>::quiet_NaN(), outside = Scalar(-99);
  std::vector<Scalar> c(std::size_t(MR + 1) * ldc, outside), c0(c.size());
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      c[i * ldc + j] = beta == Scalar(0) ? poison : Scalar(value(random));
  c0 = c;
  cpu::micro_kernel<MR, NR>(depth, a.data(), b.data(),
                            cpu::MicroTarget<Scalar>{c.data(), ldc, rows, cols, alpha, beta});
  const long double eps = std::numeric_limits<Scalar>::epsilon();
  for (int i = 0; i <= MR; ++i) {
    for (std::ptrdiff_t j = 0; j < ldc; ++j) {
      const Scalar got = c[i * ldc + j];
      if (i >= rows || j >= cols) {
        ASSERT_EQ(got, outside) << "stored outside at " << i << "," << j;
        continue;
      }
      long double sum = 0, bound = 0;
      for (int p = 0; p < depth; ++p) {
        sum += (long double)a[p * MR + i] * b[p * NR + j];
        bound += std::fabs((long double)a[p * MR + i] * b[p * NR + j]);
      }
      long double want = alpha * sum;
      bound = std::fabs((long double)alpha) * bound;
      if (beta != Scalar(0)) {
        want += (long double)beta * c0[i * ldc + j];
        bound += std::fabs((long double)beta * c0[i * ldc + j]);
      }
      ASSERT_LE(std::fabs(got - want), (depth + 2) * eps * bound)
          << "depth " << depth << " element " << i << "," << j;
    }
  }
}

TEST(CpuMicroKernel, MatchesLongDoubleReference) {
  for (const int depth : {1, 7, 37, 256}) {
    for (const auto& [alpha, beta] : {std::pair{1.5, 0.0}, {1.5, -0.5}, {0.0, 2.0}}) {
      const int mr_f = kCpuTileRows<float>, nr_f = kCpuTileCols<float>;
      const int mr_d = kCpuTileRows<double>, nr_d = kCpuTileCols<double>;
      // The whole block, C's edge cutting rows, columns (inside the first vector register or
      // past it), or both.
      for (const auto& [rows_f, cols_f, rows_d, cols_d] : {std::tuple{mr_f, nr_f, mr_d, nr_d},
                                                           {mr_f - 1, nr_f, mr_d - 1, nr_d},
                                                           {mr_f, 5, mr_d, 3},
                                                           {mr_f, nr_f - 3, mr_d, nr_d - 3},
                                                           {1, 1, 1, 1}}) {
        check_micro_kernel<float>(depth, rows_f, cols_f, float(alpha), float(beta));
        check_micro_kernel<double>(depth, rows_d, cols_d, alpha, beta);
      }
    }
  }
}

}  // namespace
}  // namespace tilemm::test
