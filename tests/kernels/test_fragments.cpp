// The lane-to-element maps of tensor-tiled's fragments (tensor_tiled_fragment.hpp), on the host:
// a warp's 32 lanes are emulated one by one. Each lane loads its elements of A and B from scratch,
// the instruction's documented semantics (D = A B + C over the warp, each lane's C elements by the
// C map) are applied to what the lanes hold, and the result must be the product of the matrices
// that were stored. The lanes' plain product (every backend without mma) must give the same, and
// so must sm_80's form of the m16 shapes, two m8n8k4 for each 4 of k. Then the GPU schedule's
// staging of the panels, emulated rank by rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "tilemm/kernels/tensor_tiled.hpp"
#include "tilemm/kernels/tensor_tiled_fragment.hpp"
#include "tilemm/kernels/tensor_tiled_launch.hpp"

namespace tilemm::test {
namespace {

constexpr int kLanes = 32;

/// An m16 x K block of A and a K x n8 block of B at (m0, k0) and (k0, n0) of larger scratch
/// panels As[k][m], Bs[k][n], the rest of the panels poisoned; C's block starts nonzero.
template <class Scalar, int K>
struct Block {
  using Frag = kernels::MmaFragment<Scalar, K>;
  static constexpr int lda = 40, ldb = 28, m0 = 16, n0 = 8, k0 = 4;
  std::vector<Scalar> As = std::vector<Scalar>((k0 + K) * lda, Scalar(-1e30));
  std::vector<Scalar> Bs = std::vector<Scalar>((k0 + K) * ldb, Scalar(-1e30));
  Scalar a(int r, int k) const { return As[(k0 + k) * lda + m0 + r]; }
  Scalar b(int k, int c) const { return Bs[(k0 + k) * ldb + n0 + c]; }
  static Scalar c0(int r, int c) { return Scalar(3 * r - 2 * c); }
  /// Values exact in float, products and their sums too: distinct small integers.
  Block() {
    for (int k = 0; k < K; ++k) {
      for (int r = 0; r < Frag::kM; ++r) As[(k0 + k) * lda + m0 + r] = Scalar(1 + r + 17 * k);
      for (int c = 0; c < Frag::kN; ++c) Bs[(k0 + k) * ldb + n0 + c] = Scalar(2 - 3 * c + 5 * k);
    }
  }
  /// (A B + C0)(r, c) in long double.
  long double expected(int r, int c) const {
    long double sum = c0(r, c);
    for (int k = 0; k < K; ++k) sum += (long double)a(r, k) * b(k, c);
    return sum;
  }
};

/// The whole warp's mma, emulated: the lanes' loads gathered into A and B by the A and B maps
/// (each element held by exactly one lane, and equal to what was stored), D = A B + C0, and each
/// lane's C elements read from D by the C map (each element of D taken exactly once).
template <class Scalar, int K>
void check_maps() {
  using Frag = kernels::MmaFragment<Scalar, K>;
  const Block<Scalar, K> block;
  std::vector<int> held_a(Frag::kM * K, 0), held_b(K * Frag::kN, 0), held_c(Frag::kM * Frag::kN, 0);
  std::vector<long double> A(Frag::kM * K), B(K * Frag::kN);
  for (int lane = 0; lane < kLanes; ++lane) {
    const auto a = Frag::load_a(block.As.data(), block.lda, block.m0, block.k0, lane);
    const auto b = Frag::load_b(block.Bs.data(), block.ldb, block.k0, block.n0, lane);
    for (int i = 0; i < Frag::kA; ++i) {
      const int r = Frag::a_row(lane, i), k = Frag::a_col(lane, i);
      ASSERT_TRUE(r < Frag::kM && k < K) << "lane " << lane << " A element " << i;
      ++held_a[r * K + k];
      A[r * K + k] = a.v[i];
      EXPECT_EQ(a.v[i], block.a(r, k)) << "lane " << lane << " A element " << i;
    }
    for (int i = 0; i < Frag::kB; ++i) {
      const int k = Frag::b_row(lane, i), c = Frag::b_col(lane, i);
      ASSERT_TRUE(k < K && c < Frag::kN) << "lane " << lane << " B element " << i;
      ++held_b[k * Frag::kN + c];
      B[k * Frag::kN + c] = b.v[i];
      EXPECT_EQ(b.v[i], block.b(k, c)) << "lane " << lane << " B element " << i;
    }
  }
  for (int h : held_a) EXPECT_EQ(h, 1) << "each element of A in one lane";
  for (int h : held_b) EXPECT_EQ(h, 1) << "each element of B in one lane";
  for (int lane = 0; lane < kLanes; ++lane) {
    typename Frag::C c, plain;
    for (int i = 0; i < Frag::kC; ++i) {
      const int r = Frag::c_row(lane, i), col = Frag::c_col(lane, i);
      ASSERT_TRUE(r < Frag::kM && col < Frag::kN) << "lane " << lane << " C element " << i;
      ++held_c[r * Frag::kN + col];
      long double d = block.c0(r, col);
      for (int k = 0; k < K; ++k) d += A[r * K + k] * B[k * Frag::kN + col];
      c[i] = Scalar(d);
      plain[i] = block.c0(r, col);
    }
    Frag::product(plain, block.As.data(), block.lda, block.Bs.data(), block.ldb, block.m0, block.n0,
                  block.k0, lane);
    for (int i = 0; i < Frag::kC; ++i) {
      const long double want = block.expected(Frag::c_row(lane, i), Frag::c_col(lane, i));
      EXPECT_EQ((long double)c[i], want) << "mma, lane " << lane << " C element " << i;
      EXPECT_EQ((long double)plain[i], want) << "product, lane " << lane << " C element " << i;
    }
  }
  for (int h : held_c) EXPECT_EQ(h, 1) << "each element of C in one lane";
}

/// sm_80's form of a double m16 shape: for each 4 of k, m8n8k4 on rows g (A elements 2s, C
/// elements 0 and 1) and on rows g + 8 (A elements 2s + 1, C elements 2 and 3), with B element s.
/// m8n8k4's maps (PTX): A row g, column t; B row t, column g; C elements i row g, column 2 t + i.
template <int K>
void check_m8n8k4_halves() {
  using Frag = kernels::MmaFragment<double, K>;
  const Block<double, K> block;
  typename Frag::A a[kLanes];
  typename Frag::B b[kLanes];
  double c[kLanes][4];
  for (int lane = 0; lane < kLanes; ++lane) {
    a[lane] = Frag::load_a(block.As.data(), block.lda, block.m0, block.k0, lane);
    b[lane] = Frag::load_b(block.Bs.data(), block.ldb, block.k0, block.n0, lane);
    for (int i = 0; i < 4; ++i) c[lane][i] = block.c0(Frag::c_row(lane, i), Frag::c_col(lane, i));
  }
  for (int s = 0; s < K / 4; ++s) {
    for (int half = 0; half < 2; ++half) {
      double A8[8][4], B8[4][8];  // the m8n8k4's operands, from the lanes by its maps
      for (int lane = 0; lane < kLanes; ++lane) {
        A8[lane / 4][lane % 4] = a[lane].v[2 * s + half];
        B8[lane % 4][lane / 4] = b[lane].v[s];
      }
      for (int lane = 0; lane < kLanes; ++lane) {
        for (int i = 0; i < 2; ++i) {
          for (int k = 0; k < 4; ++k)
            c[lane][2 * half + i] += A8[lane / 4][k] * B8[k][2 * (lane % 4) + i];
        }
      }
    }
  }
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ((long double)c[lane][i], block.expected(Frag::c_row(lane, i), Frag::c_col(lane, i)))
          << "m8n8k4 halves, k" << K << ", lane " << lane << " C element " << i;
    }
  }
}

/// The maps as the PTX ISA's tables give them (section "Matrix Fragments for mma.m16n8k*"), for
/// lane = 4 groupID + threadID_in_group: element i of A at (groupID + row[i], threadID + col[i]),
/// of B at (threadID + k[i], groupID), of C at (groupID + row[i], 2 threadID + col[i]).
template <class Scalar, int K>
void check_ptx_tables(std::vector<int> a_rows, std::vector<int> a_cols, std::vector<int> b_rows) {
  using Frag = kernels::MmaFragment<Scalar, K>;
  const int c_rows[] = {0, 0, 8, 8}, c_cols[] = {0, 1, 0, 1};
  ASSERT_EQ(int(a_rows.size()), Frag::kA);
  ASSERT_EQ(int(b_rows.size()), Frag::kB);
  for (int lane = 0; lane < kLanes; ++lane) {
    const int group = lane / 4, thread = lane % 4;
    for (int i = 0; i < Frag::kA; ++i) {
      EXPECT_EQ(Frag::a_row(lane, i), group + a_rows[i]) << "lane " << lane << " a" << i;
      EXPECT_EQ(Frag::a_col(lane, i), thread + a_cols[i]) << "lane " << lane << " a" << i;
    }
    for (int i = 0; i < Frag::kB; ++i) {
      EXPECT_EQ(Frag::b_row(lane, i), thread + b_rows[i]) << "lane " << lane << " b" << i;
      EXPECT_EQ(Frag::b_col(lane, i), group) << "lane " << lane << " b" << i;
    }
    for (int i = 0; i < Frag::kC; ++i) {
      EXPECT_EQ(Frag::c_row(lane, i), group + c_rows[i]) << "lane " << lane << " c" << i;
      EXPECT_EQ(Frag::c_col(lane, i), 2 * thread + c_cols[i]) << "lane " << lane << " c" << i;
    }
  }
}

TEST(Fragments, MapsAreThePtxTables) {
  check_ptx_tables<double, 4>({0, 8}, {0, 0}, {0});
  check_ptx_tables<double, 8>({0, 8, 0, 8}, {0, 0, 4, 4}, {0, 4});
  check_ptx_tables<double, 16>({0, 8, 0, 8, 0, 8, 0, 8}, {0, 0, 4, 4, 8, 8, 12, 12}, {0, 4, 8, 12});
  check_ptx_tables<float, 8>({0, 8, 0, 8}, {0, 0, 4, 4}, {0, 4});
}
TEST(Fragments, WarpProductsDouble) {
  check_maps<double, 4>();
  check_maps<double, 8>();
  check_maps<double, 16>();
}
TEST(Fragments, WarpProductsFloat) {
  check_maps<float, 8>();
}
/// The same block stored As[m][k] (tiles with copy stages): each lane loads the same elements,
/// and the lanes' plain product is the same.
template <class Scalar, int K>
void check_rows_layout() {
  using Frag = kernels::MmaFragment<Scalar, K>;
  const Block<Scalar, K> block;
  constexpr int ld = Block<Scalar, K>::k0 + K + 4;
  std::vector<Scalar> rows((block.m0 + Frag::kM) * ld, Scalar(-1e30));
  for (int r = 0; r < Frag::kM; ++r)
    for (int k = 0; k < K; ++k) rows[(block.m0 + r) * ld + block.k0 + k] = block.a(r, k);
  for (int lane = 0; lane < kLanes; ++lane) {
    const auto want = Frag::load_a(block.As.data(), block.lda, block.m0, block.k0, lane);
    const auto got = Frag::load_a(rows.data(), {ld, true}, block.m0, block.k0, lane);
    for (int i = 0; i < Frag::kA; ++i) EXPECT_EQ(got.v[i], want.v[i]) << "lane " << lane;
    typename Frag::C c{}, c_rows{};
    Frag::product(c, block.As.data(), block.lda, block.Bs.data(), block.ldb, block.m0, block.n0,
                  block.k0, lane);
    Frag::product(c_rows, rows.data(), {ld, true}, block.Bs.data(), block.ldb, block.m0, block.n0,
                  block.k0, lane);
    for (int i = 0; i < Frag::kC; ++i) EXPECT_EQ(c_rows[i], c[i]) << "lane " << lane;
  }
}
TEST(Fragments, RowsOfAHoldTheSameFragments) {
  check_rows_layout<double, 8>();
  check_rows_layout<double, 16>();
  check_rows_layout<float, 8>();
}
/// The swizzled As[m][k] of rows of 8 doubles (ScratchA, flip 3): every element in a slot of its
/// own, each 16-byte run of a row kept whole and aligned in the same row; fragments loaded from it
/// are those of the unswizzled block, and so is the lanes' plain product.
TEST(Fragments, SwizzledRowsHoldTheSameFragments) {
  using Frag = kernels::MmaFragment<double, 8>;
  const kernels::ScratchA swizzled(8, true, 3);
  constexpr int kRows = 32;
  std::vector<int> taken(kRows * 8, 0);
  for (int m = 0; m < kRows; ++m) {
    for (int k = 0; k < 8; k += 2) {
      const int at = swizzled(m, k);
      EXPECT_EQ(at % 2, 0) << "row " << m << " run " << k / 2 << " aligned";
      EXPECT_EQ(swizzled(m, k + 1), at + 1) << "row " << m << " run " << k / 2 << " whole";
      EXPECT_EQ(at / 8, m) << "row " << m << " run " << k / 2 << " in its row";
      ++taken[at];
      ++taken[at + 1];
    }
  }
  for (int t : taken) EXPECT_EQ(t, 1) << "each slot taken once";
  const auto value = [](int m, int k) {
    return 1.0 + m + 100.0 * k;
  };
  std::vector<double> As(kRows * 8), Bs(8 * 8);
  std::vector<double> plain_a(8 * kRows);  // the same block unswizzled, As[k][m]
  for (int m = 0; m < kRows; ++m) {
    for (int k = 0; k < 8; ++k) As[swizzled(m, k)] = plain_a[k * kRows + m] = value(m, k);
  }
  for (int i = 0; i < 64; ++i) Bs[i] = 2.0 - i;
  for (const int m0 : {0, 16}) {
    for (int lane = 0; lane < kLanes; ++lane) {
      const auto got = Frag::load_a(As.data(), swizzled, m0, 0, lane);
      for (int i = 0; i < Frag::kA; ++i) {
        EXPECT_EQ(got.v[i], value(m0 + Frag::a_row(lane, i), Frag::a_col(lane, i)))
            << "lane " << lane << " A element " << i;
      }
      Frag::C c{}, want{};
      Frag::product(c, As.data(), swizzled, Bs.data(), 8, m0, 0, 0, lane);
      Frag::product(want, plain_a.data(), kRows, Bs.data(), 8, m0, 0, 0, lane);
      for (int i = 0; i < Frag::kC; ++i) EXPECT_EQ(c[i], want[i]) << "lane " << lane;
    }
  }
}

TEST(Fragments, DoubleAsM8N8K4) {
  check_m8n8k4_halves<4>();
  check_m8n8k4_halves<8>();
  check_m8n8k4_halves<16>();
}

/// The wide schedule (tensor_tiled_wide.hpp), a warp emulated: for each k-step, the lanes' A and
/// B elements gathered by PTX's maps into the mma's operands, D = A B over both k-steps must be
/// the product over all 16 k of the block stored in As (rows of 16) and Bs (swizzled rows), each
/// element of A and B taken by exactly one lane and k-step.
TEST(Fragments, WideScheduleTakesEveryKOnce) {
  using Wide = kernels::WideTf32;
  using Frag = Wide::Frag;
  constexpr int kDepth = Wide::kDepth, kRows = 32, kCols = 32, m0 = 16, n0 = 8;
  const kernels::ScratchB bt(kCols, 1);
  std::vector<float> As(kRows * kDepth, -1e30f), Bs(kDepth * kCols, -1e30f);
  const auto a_value = [](int r, int k) {
    return float(1 + r + 17 * k);
  };
  const auto b_value = [](int k, int c) {
    return float(2 - 3 * c + 5 * k);
  };
  for (int r = 0; r < Frag::kM; ++r)
    for (int k = 0; k < kDepth; ++k) As[(m0 + r) * kDepth + k] = a_value(r, k);
  for (int k = 0; k < kDepth; ++k)
    for (int c = 0; c < Frag::kN; ++c) Bs[bt(k, n0 + c)] = b_value(k, c);
  std::vector<int> held_a(Frag::kM * kDepth, 0), held_b(kDepth * Frag::kN, 0);
  long double D[Frag::kM][Frag::kN] = {};
  Frag::A a[kLanes][Wide::kSteps];
  Frag::B b[kLanes][Wide::kSteps];
  for (int lane = 0; lane < kLanes; ++lane) {
    Wide::load_a(As.data(), m0, lane, a[lane]);
    Wide::load_b(Bs.data(), bt, n0, lane, b[lane]);
  }
  for (int s = 0; s < Wide::kSteps; ++s) {
    long double A[Frag::kM][8], B[8][Frag::kN];
    for (int lane = 0; lane < kLanes; ++lane) {
      for (int i = 0; i < Frag::kA; ++i) {
        A[Frag::a_row(lane, i)][Frag::a_col(lane, i)] = a[lane][s].v[i];
        const int r = Frag::a_row(lane, i);
        for (int k = 0; k < kDepth; ++k) held_a[r * kDepth + k] += a[lane][s].v[i] == a_value(r, k);
      }
      for (int i = 0; i < Frag::kB; ++i) {
        B[Frag::b_row(lane, i)][Frag::b_col(lane, i)] = b[lane][s].v[i];
        const int c = Frag::b_col(lane, i);
        for (int k = 0; k < kDepth; ++k)
          held_b[k * Frag::kN + c] += b[lane][s].v[i] == b_value(k, c);
      }
    }
    for (int r = 0; r < Frag::kM; ++r) {
      for (int c = 0; c < Frag::kN; ++c) {
        for (int k = 0; k < 8; ++k) D[r][c] += A[r][k] * B[k][c];
      }
    }
  }
  for (int h : held_a) EXPECT_EQ(h, 1) << "each element of A in one lane and k-step";
  for (int h : held_b) EXPECT_EQ(h, 1) << "each element of B in one lane and k-step";
  for (int r = 0; r < Frag::kM; ++r) {
    for (int c = 0; c < Frag::kN; ++c) {
      long double want = 0;
      for (int k = 0; k < kDepth; ++k) want += (long double)a_value(r, k) * b_value(k, c);
      EXPECT_EQ(D[r][c], want) << "D(" << r << ", " << c << ")";
    }
  }
}

/// Kokkos for the staging test's views, around all tests.
class KokkosEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { Kokkos::initialize(); }
  void TearDown() override { Kokkos::finalize(); }
};
const auto* const kKokkos = ::testing::AddGlobalTestEnvironment(new KokkosEnvironment);

/// The GPU schedule's staging (tensor_tiled.hpp, pipelined): each of the team's ranks fetches its
/// share of a panel into registers and deposits it into scratch; together they must write the
/// whole panel, op(X)'s block with zeros outside op(X), in every op and layout, for panels inside
/// and over the edges of a matrix that divides no tile, read 4 neighbours a load (`aligned`) or
/// one. Where a panel lies inside op(X) along the scratch rows, the copy stages' copies must write
/// the same panel. As is read by the kernel's layout of it (As[k][m], or As[m][k] swizzled).
template <class Scalar, class Tile, class Layout>
void check_staging(bool transposed_a, bool transposed_b, bool aligned) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Kernel = kernels::TensorTiledGemm<Space, Scalar, Layout, Tile>;
  using Matrix = typename Kernel::Operands::matrix;
  const int M = 152, N = 140, K = 20;  // runs of 4 aligned, and no tile divides them
  const Matrix A("A", transposed_a ? K : M, transposed_a ? M : K);
  const Matrix B("B", transposed_b ? N : K, transposed_b ? K : N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < K; ++j) (transposed_a ? A(j, i) : A(i, j)) = 1 + i + 1000 * j;
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < N; ++j) (transposed_b ? B(j, i) : B(i, j)) = 2 + i + 1000 * j;
  Kernel k{};
  k.g.a = {A, transposed_a};
  k.g.b = {B, transposed_b};
  k.g.c = Matrix("C", M, N);
  ASSERT_TRUE(k.g.a.runs_aligned(4) && k.g.b.runs_aligned(4));
  std::vector<Scalar> buffer(Kernel::kBuffer);
  const auto expect_panel = [&](const char* how, bool of_a, int row0, int col0, int k0) {
    for (int kk = 0; kk < Kernel::BK; ++kk) {
      for (int x = 0; x < (of_a ? Kernel::BM : Kernel::BN); ++x) {
        const int i = of_a ? row0 + x : k0 + kk, j = of_a ? k0 + kk : col0 + x;
        const Scalar want = i < (of_a ? M : K) && j < (of_a ? K : N)
                                ? (of_a ? k.g.a(i, j) : k.g.b(i, j))
                                : Scalar(0);
        const int at =
            of_a ? Kernel::a_layout()(x, kk) : Kernel::kAScalars + Kernel::b_layout()(kk, x);
        ASSERT_EQ(buffer[at], want) << how << (of_a ? " As, m " : " Bs, n ") << x << ", k " << kk;
      }
    }
  };
  for (const auto& [row0, col0, k0] : {std::tuple{0, 0, 0}, {128, 128, 16}}) {  // inside; edges
    std::fill(buffer.begin(), buffer.end(), Scalar(-1));
    const auto a = k.a_panel(buffer.data(), row0, k0), b = k.b_panel(buffer.data(), k0, col0);
    for (int rank = 0; rank < Kernel::kLanes; ++rank) {
      Scalar stage_a[Kernel::kStageA], stage_b[Kernel::kStageB];
      const auto quads_a = a.walk(rank, Kernel::kLanes, 4),
                 quads_b = b.walk(rank, Kernel::kLanes, 4);
      const bool in_a = Kernel::fetch(k.g.a, aligned, a, rank, quads_a, stage_a);
      const bool in_b = Kernel::fetch(k.g.b, aligned, b, rank, quads_b, stage_b);
      Kernel::deposit(in_a, a, rank, quads_a, stage_a);
      Kernel::deposit(in_b, b, rank, quads_b, stage_b);
    }
    expect_panel("staged", true, row0, col0, k0);
    expect_panel("staged", false, row0, col0, k0);
    if constexpr (Kernel::kCopies > 0) {
      std::fill(buffer.begin(), buffer.end(), Scalar(-1));
      const bool copy_a = a.dst_along_lines() && a.inside(k.g.a);
      const bool copy_b = b.dst_along_lines() && b.inside(k.g.b);
      for (int rank = 0; rank < Kernel::kLanes; ++rank) {
        if (copy_a)
          Kernel::template copy<Kernel::kStageA / 4>(k.g.a, a, a.walk(rank, Kernel::kLanes, 4));
        if (copy_b)
          Kernel::template copy<Kernel::kStageB / 4>(k.g.b, b, b.walk(rank, Kernel::kLanes, 4));
      }
      if (copy_a) expect_panel("copied", true, row0, col0, k0);
      if (copy_b) expect_panel("copied", false, row0, col0, k0);
    }
  }
}

TEST(TensorTiledStaging, EveryRankStagesItsShare) {
  using AsKM = kernels::TensorTile<128, 128, 8, 64, 32>;           // As[k][m]
  using AsSwizzled = kernels::TensorTile<128, 64, 8, 64, 32, 3>;   // As[m][k], swizzled in double
  using AsPadded = kernels::TensorTile<64, 64, 16, 32, 32, 2>;     // As[m][k], padded rows
  using Wide = kernels::TensorTile<128, 64, 16, 64, 32, 3, true>;  // float: Bs swizzled
  for (int op = 0; op < 4; ++op) {
    for (const bool aligned : {false, true}) {
      check_staging<double, AsKM, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging<double, AsKM, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
      check_staging<double, AsSwizzled, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging<double, AsSwizzled, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
      check_staging<double, AsPadded, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging<float, Wide, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging<float, Wide, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
    }
  }
}

/// The launch's default counts on copies exactly where the kernel makes them: for an inner tile, K
/// in whole blocks and aligned runs, TensorTiled::copies_can_engage (the plan's view, from the op
/// and layout) agrees with TensorTiledGemm::copies_as_they_lie (the kernel's, from the operands),
/// in one op of each layout. Returns whether they engage.
template <class Layout>
bool check_copies_engage(bool transposed_a, bool transposed_b) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Kernel =
      kernels::TensorTiledGemm<Space, double, Layout, kernels::TensorTile<128, 64, 8, 64, 32, 3>>;
  using Matrix = typename Kernel::Operands::matrix;
  const int M = 256, N = 128, K = 32;
  Kernel k{};
  k.g.a = {Matrix("A", transposed_a ? K : M, transposed_a ? M : K), transposed_a};
  k.g.b = {Matrix("B", transposed_b ? N : K, transposed_b ? K : N), transposed_b};
  k.g.c = Matrix("C", M, N);
  k.quads_a = k.g.a.runs_aligned(4);
  k.quads_b = k.g.b.runs_aligned(4);
  std::vector<double> buffer(Kernel::kBuffer);
  const Extents e{M, N, K, transposed_a ? Trans::T : Trans::N, transposed_b ? Trans::T : Trans::N};
  const bool engage = k.copies_as_they_lie(0, 0, buffer.data());
  EXPECT_EQ(engage, (kernels::TensorTiled<Space, double, Layout>::copies_can_engage(e)))
      << "op " << to_string(e.trans_a) << to_string(e.trans_b);
  return engage;
}

TEST(TensorTiledStaging, DefaultCountsOnCopiesWhereTheyEngage) {
  int right = 0, left = 0;
  for (int op = 0; op < 4; ++op) {
    right += check_copies_engage<Kokkos::LayoutRight>(op & 1, op & 2);
    left += check_copies_engage<Kokkos::LayoutLeft>(op & 1, op & 2);
  }
  EXPECT_EQ(right, 1) << "NN alone in LayoutRight";
  EXPECT_EQ(left, 1) << "TT alone in LayoutLeft";
}

/// Shared-memory wavefronts of one warp-wide access of `bytes` a lane at the byte offsets `at`, by
/// CUDA's model: 32 banks of 4 bytes; 8-byte accesses served a half-warp at a time, 16-byte ones a
/// quarter-warp; within one, a bank serves one 4-byte word a wavefront (lanes that read the same
/// word share it). A warp needs at least 32 x bytes / 128.
int wavefronts(const std::vector<long>& at, int bytes) {
  const int group = 128 / bytes;
  int total = 0;
  for (int first = 0; first < kLanes; first += group) {
    std::vector<std::vector<long>> words(32);  // the distinct words each bank serves
    for (int lane = first; lane < first + group; ++lane) {
      for (long word = at[lane] / 4; word < (at[lane] + bytes) / 4; ++word) {
        auto& bank = words[word % 32];
        if (std::find(bank.begin(), bank.end(), word) == bank.end()) bank.push_back(word);
      }
    }
    std::size_t most = 0;
    for (const auto& bank : words) most = std::max(most, bank.size());
    total += int(most);
  }
  return total;
}

/// The wide schedule's loads of one warp (tensor_tiled_wide.hpp) from a scratch whose every
/// element holds its own offset: A's 16-byte loads of 4 neighbours in the fewest wavefronts (4 a
/// warp), B's 4-byte loads in one.
template <class Kernel>
void check_wide_loads(const std::string& name, const float* As, const float* Bs, int wm0, int wn0) {
  using Wide = kernels::WideTf32;
  for (int f = 0; f < Kernel::FM; ++f) {
    std::vector<long> upper(kLanes), lower(kLanes);
    for (int lane = 0; lane < kLanes; ++lane) {
      typename Wide::Frag::A a[Wide::kSteps];
      Wide::load_a(As, wm0 + Wide::Frag::kM * f, lane, a);
      for (int j = 0; j < 4; ++j) {  // a load's neighbours: k 4 t + j of rows g and g + 8
        EXPECT_EQ(a[j / 2].v[2 * (j % 2)], a[0].v[0] + j) << name << " lane " << lane;
        EXPECT_EQ(a[j / 2].v[2 * (j % 2) + 1], a[0].v[1] + j) << name << " lane " << lane;
      }
      upper[lane] = long(a[0].v[0]) * 4;
      lower[lane] = long(a[0].v[1]) * 4;
    }
    EXPECT_EQ(wavefronts(upper, 16), 4) << name << ": A fragment " << f << ", rows g";
    EXPECT_EQ(wavefronts(lower, 16), 4) << name << ": A fragment " << f << ", rows g + 8";
  }
  for (int f = 0; f < Kernel::FN; ++f) {
    std::vector<std::array<typename Wide::Frag::B, Wide::kSteps>> b(kLanes);
    for (int lane = 0; lane < kLanes; ++lane) {
      typename Wide::Frag::B loaded[Wide::kSteps];
      Wide::load_b(Bs, Kernel::b_layout(), wn0 + Wide::Frag::kN * f, lane, loaded);
      for (int s = 0; s < Wide::kSteps; ++s) b[lane][s] = loaded[s];
    }
    for (int s = 0; s < Wide::kSteps; ++s) {
      for (int i = 0; i < Wide::Frag::kB; ++i) {
        std::vector<long> at(kLanes);
        for (int lane = 0; lane < kLanes; ++lane) at[lane] = long(b[lane][s].v[i]) * 4;
        EXPECT_EQ(wavefronts(at, 4), 1) << name << ": B fragment " << f << ", k-step " << s;
      }
    }
  }
}

/// For every tile of the table, every warp's fragment loads (tensor_tiled.hpp, mma_block) take the
/// fewest wavefronts at every k-step: one a warp in float, two in double. The loads of a scratch
/// whose every element holds its own offset give the addresses that the lanes read.
template <class Scalar>
void check_fragment_loads_conflict_free() {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Launch = kernels::TensorTiled<Space, Scalar, Kokkos::LayoutRight>;
  kernels::any_of_types(typename Launch::Tiles{}, [](auto tile) {
    using Kernel = kernels::TensorTiledGemm<Space, Scalar, Kokkos::LayoutRight, decltype(tile)>;
    using Frag = typename Kernel::Frag;
    const std::string name = decltype(tile)::tiling().to_string();
    std::vector<Scalar> offsets(Kernel::kBuffer);
    std::iota(offsets.begin(), offsets.end(), Scalar(0));  // exact in float at these sizes
    const Scalar* As = offsets.data();
    const Scalar* Bs = As + Kernel::kAScalars;
    const int fewest = kLanes * int(sizeof(Scalar)) / 128;
    const auto expect_fewest = [&](const char* what, int f, int kk, int i, const auto& loaded) {
      std::vector<long> at(kLanes);
      for (int lane = 0; lane < kLanes; ++lane) at[lane] = long(loaded[lane].v[i]) * sizeof(Scalar);
      EXPECT_EQ(wavefronts(at, sizeof(Scalar)), fewest)
          << name << ": " << what << " fragment " << f << ", k " << kk << ", element " << i;
    };
    for (int warp = 0; warp < Kernel::kWarps; ++warp) {
      const int wm0 = (warp / Kernel::kWarpsN) * Kernel::WM;
      const int wn0 = (warp % Kernel::kWarpsN) * Kernel::WN;
      if constexpr (Kernel::kWideSchedule) {
        check_wide_loads<Kernel>(name, As, Bs, wm0, wn0);
        continue;
      }
      for (int kk = 0; kk < Kernel::BK; kk += Kernel::kInstK) {
        for (int f = 0; f < Kernel::FM; ++f) {
          std::vector<typename Frag::A> a(kLanes);
          for (int lane = 0; lane < kLanes; ++lane)
            a[lane] = Frag::load_a(As, Kernel::a_layout(), wm0 + Frag::kM * f, kk, lane);
          for (int i = 0; i < Frag::kA; ++i) expect_fewest("A", f, kk, i, a);
        }
        for (int f = 0; f < Kernel::FN; ++f) {
          std::vector<typename Frag::B> b(kLanes);
          for (int lane = 0; lane < kLanes; ++lane)
            b[lane] = Frag::load_b(Bs, Kernel::kLdb, kk, wn0 + Frag::kN * f, lane);
          for (int i = 0; i < Frag::kB; ++i) expect_fewest("B", f, kk, i, b);
        }
      }
    }
    return false;  // on to the next tile
  });
}

TEST(TensorTiledScratch, FragmentLoadsMeetNoBankConflict) {
  check_fragment_loads_conflict_free<float>();
  check_fragment_loads_conflict_free<double>();
}

/// The copies of a panel p (tensor_tiled.hpp, copy) by each warp of the team: every 16-byte copy
/// a warp makes at once writes in the fewest wavefronts, 4.
template <class Kernel, class Panel>
void check_copies_conflict_free(const char* what, const Panel& p, int quads) {
  constexpr int kScalar = sizeof(*p.dst), kWide = 16 / kScalar;
  for (int warp = 0; warp < Kernel::kWarps; ++warp) {
    std::vector<kernels::PanelWalk> walks;
    for (int lane = 0; lane < kLanes; ++lane)
      walks.push_back(p.walk(32 * warp + lane, Kernel::kLanes, 4));
    for (int s = 0; s < quads; ++s) {
      for (int i = 0; i < 4; i += kWide) {  // a quad's 16-byte copies
        std::vector<long> at(kLanes);
        for (int lane = 0; lane < kLanes; ++lane) {
          ASSERT_TRUE(walks[lane].more());
          at[lane] = long(&p.at(walks[lane].line, walks[lane].pos() + i) - p.dst) * kScalar;
        }
        EXPECT_EQ(wavefronts(at, 16), 4)
            << what << ": warp " << warp << ", quad " << s << ", copy " << i / kWide;
      }
      for (auto& w : walks) w.next();
    }
  }
}

/// The copies into a swizzled As (A contiguous along k, NN in LayoutRight) and into the wide
/// schedule's As and swizzled Bs meet no bank conflict either.
TEST(TensorTiledScratch, CopiesIntoSwizzledRowsMeetNoBankConflict) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  {
    using Kernel = kernels::TensorTiledGemm<Space, double, Kokkos::LayoutRight,
                                            kernels::TensorTile<128, 64, 8, 64, 32, 3>>;
    static_assert(Kernel::kSwizzled, "the tile keeps As swizzled");
    using Matrix = typename Kernel::Operands::matrix;
    Kernel k{};
    k.g.a = {Matrix("A", Kernel::BM, Kernel::BK), false};
    std::vector<double> buffer(Kernel::kBuffer);
    check_copies_conflict_free<Kernel>("double As", k.a_panel(buffer.data(), 0, 0),
                                       Kernel::kStageA / 4);
  }
  using Kernel = kernels::TensorTiledGemm<Space, float, Kokkos::LayoutRight,
                                          kernels::TensorTile<128, 64, 16, 64, 32, 3, true>>;
  static_assert(Kernel::kWideSchedule, "the tile runs the wide schedule");
  using Matrix = typename Kernel::Operands::matrix;
  Kernel k{};
  k.g.a = {Matrix("A", Kernel::BM, Kernel::BK), false};
  k.g.b = {Matrix("B", Kernel::BK, Kernel::BN), false};
  std::vector<float> buffer(Kernel::kBuffer);
  check_copies_conflict_free<Kernel>("wide As", k.a_panel(buffer.data(), 0, 0),
                                     Kernel::kStageA / 4);
  check_copies_conflict_free<Kernel>("wide Bs", k.b_panel(buffer.data(), 0, 0),
                                     Kernel::kStageB / 4);
}

}  // namespace
}  // namespace tilemm::test
