// The lane-to-element maps of tensor-tiled's fragments (warp/mma_fragment.hpp), on the host:
// a warp's 32 lanes are emulated one by one. Each lane loads its elements of A and B from scratch,
// the instruction's documented semantics (D = A B + C over the warp, each lane's C elements by the
// C map) are applied to what the lanes hold, and the result must be the product of the matrices
// that were stored. The lanes' plain product (every backend without mma) must give the same, and
// so must sm_80's form of the m16 shapes, two m8n8k4 for each 4 of k, and the wide schedule's
// two k-steps. (The kernel's scratch, rank by rank and lane by lane: test_tensor_scratch.cpp.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/warp/mma_fragment.hpp"
#include "tilemm/kernels/warp/wide_tf32.hpp"

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
/// The same block stored in rows of k (operands that run along k in memory): As[m][k] and
/// Bs[n][k], padded (ld) or, in rows of 8, swizzled; each lane loads the same
/// elements, and the lanes' plain product is the same.
template <class Scalar, int K>
void check_rows_of_k(int ld, int flip, int flip_row) {
  using Frag = kernels::MmaFragment<Scalar, K>;
  const Block<Scalar, K> block;
  const kernels::OperandScratch rows_of_k(ld, kernels::Along::k, flip, flip_row);
  constexpr int kRows = Block<Scalar, K>::m0 + Frag::kM;  // covers n0 + kN too
  std::vector<Scalar> as((kRows + 4) * ld, Scalar(-1e30)), bs((kRows + 4) * ld, Scalar(-1e30));
  for (int k = 0; k < K; ++k) {
    for (int r = 0; r < Frag::kM; ++r) as[rows_of_k(block.m0 + r, k)] = block.a(r, k);
    for (int c = 0; c < Frag::kN; ++c) bs[rows_of_k(block.n0 + c, k)] = block.b(k, c);
  }
  for (int lane = 0; lane < kLanes; ++lane) {
    const auto want_a = Frag::load_a(block.As.data(), block.lda, block.m0, block.k0, lane);
    const auto want_b = Frag::load_b(block.Bs.data(), block.ldb, block.k0, block.n0, lane);
    const auto got_a = Frag::load_a(as.data(), rows_of_k, block.m0, 0, lane);
    const auto got_b = Frag::load_b(bs.data(), rows_of_k, 0, block.n0, lane);
    for (int i = 0; i < Frag::kA; ++i) EXPECT_EQ(got_a.v[i], want_a.v[i]) << "A, lane " << lane;
    for (int i = 0; i < Frag::kB; ++i) EXPECT_EQ(got_b.v[i], want_b.v[i]) << "B, lane " << lane;
    typename Frag::C c{}, c_rows{};
    Frag::product(c, block.As.data(), block.lda, block.Bs.data(), block.ldb, block.m0, block.n0,
                  block.k0, lane);
    Frag::product(c_rows, as.data(), rows_of_k, bs.data(), rows_of_k, block.m0, block.n0, 0, lane);
    for (int i = 0; i < Frag::kC; ++i) EXPECT_EQ(c_rows[i], c[i]) << "lane " << lane;
  }
}
TEST(Fragments, RowsOfKHoldTheSameFragments) {
  check_rows_of_k<double, 8>(12, 0, 2);
  check_rows_of_k<double, 8>(8, 6, 2);
  check_rows_of_k<double, 16>(20, 0, 2);
  check_rows_of_k<float, 8>(12, 0, 2);
  check_rows_of_k<float, 8>(8, 4, 4);
}
/// The swizzled As[m][k] of rows of 8 doubles (OperandScratch along k, flip 6 where bit 1 is set):
/// every element in a slot of its own, each 16-byte run of a row kept whole and aligned in the same
/// row; fragments loaded from it are those of the unswizzled block, and so is the lanes' plain
/// product.
TEST(Fragments, SwizzledRowsHoldTheSameFragments) {
  using Frag = kernels::MmaFragment<double, 8>;
  const kernels::OperandScratch swizzled(8, kernels::Along::k, 6, 2);
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

/// The wide schedule (warp/wide_tf32.hpp), a warp emulated: for each k-step, the lanes' A and
/// B elements gathered by PTX's maps into the mma's operands, D = A B over both k-steps must be
/// the product over all 16 k of the block stored in As and Bs as `at` and `bt` lay them out, each
/// element of A and B taken by exactly one lane and k-step.
void check_wide_schedule(kernels::OperandScratch at, kernels::OperandScratch bt) {
  using Wide = kernels::WideTf32;
  using Frag = Wide::Frag;
  constexpr int kDepth = Wide::kDepth, kRows = 32, m0 = 16, n0 = 8;
  std::vector<float> As(kRows * kRows, -1e30f), Bs(kRows * kRows, -1e30f);
  const auto a_value = [](int r, int k) {
    return float(1 + r + 17 * k);
  };
  const auto b_value = [](int k, int c) {
    return float(2 - 3 * c + 5 * k);
  };
  for (int k = 0; k < kDepth; ++k) {
    for (int r = 0; r < Frag::kM; ++r) As[at(m0 + r, k)] = a_value(r, k);
    for (int c = 0; c < Frag::kN; ++c) Bs[bt(n0 + c, k)] = b_value(k, c);
  }
  std::vector<int> held_a(Frag::kM * kDepth, 0), held_b(kDepth * Frag::kN, 0);
  long double D[Frag::kM][Frag::kN] = {};
  Frag::A a[kLanes][Wide::kSteps];
  Frag::B b[kLanes][Wide::kSteps];
  for (int lane = 0; lane < kLanes; ++lane) {
    Wide::load_a(As.data(), at, m0, lane, a[lane]);
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
/// In every orientation of the operands: rows of 16 k, or rows of 32 m or n swizzled.
TEST(Fragments, WideScheduleTakesEveryKOnce) {
  using kernels::Along;
  const kernels::OperandScratch rows_of_k(16, Along::k), rows_of_mn(32, Along::mn, 1);
  for (const auto& at : {rows_of_k, rows_of_mn}) {
    for (const auto& bt : {rows_of_k, rows_of_mn}) {
      SCOPED_TRACE(std::string("A in rows of ") + (at.along == Along::k ? "k" : "m") +
                   ", B in rows of " + (bt.along == Along::k ? "k" : "n"));
      check_wide_schedule(at, bt);
    }
  }
}

/// Kokkos for the views of this executable's tests, around all of them.
class KokkosEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { Kokkos::initialize(); }
  void TearDown() override { Kokkos::finalize(); }
};
const auto* const kKokkos = ::testing::AddGlobalTestEnvironment(new KokkosEnvironment);

}  // namespace
}  // namespace tilemm::test
