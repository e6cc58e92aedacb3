// ozaki's own cases (every kernel's are in test_kernels.cpp): data whose exponents spread over
// many binades within rows and columns, zeros and subnormals, a K past int32's reach, counts of
// moduli given and chosen, and the refusal of data it cannot return at double accuracy. The choice
// of moduli and the reconstruction are host functions, tested here without a backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "backend_dispatch.hpp"
#include "kernel_cases.hpp"
#include "tilemm/kernels/registry.hpp"

namespace tilemm::test {
namespace {

namespace oz = kernels::ozaki;

TEST(OzakiModuli, PairwiseCoprimeAndAtMost256) {
  for (int p = 0; p < oz::kMaxModuli; ++p) {
    EXPECT_LE(oz::kModuli[p], 256);
    for (int q = 0; q < p; ++q) EXPECT_EQ(std::gcd(oz::kModuli[p], oz::kModuli[q]), 1);
  }
}

TEST(OzakiModuli, BitsLeaveRoomForTheProduct) {
  // 2 k 2^bits < P: the exact sum of k products of bA + bB bits lies in the balanced range.
  for (const std::int64_t k : {1, 2, 3, 64, 1000, 4099, 70000}) {
    for (int count = 2; count <= oz::kMaxModuli; ++count) {
      long double log2_product = 0;
      for (int p = 0; p < count; ++p) log2_product += std::log2((long double)oz::kModuli[p]);
      const int bits = oz::bits_for(count, k);
      EXPECT_LT(1 + std::log2((long double)k) + bits, log2_product) << count << " moduli, k " << k;
    }
  }
  EXPECT_EQ(oz::bits_for(1, 1), 6);   // 256: 8 bits, 2 kept back
  EXPECT_EQ(oz::bits_for(2, 4), 11);  // 256 * 255: 15.99 bits, 2 kept back, 2 for k
}

TEST(OzakiModuli, DefaultCountFromTheExponentRanges) {
  // Rows and columns of one magnitude: 106 bits and log2 k.
  EXPECT_EQ(oz::moduli_needed(0, 0, 1), 14);  // 14 moduli: 110 bits, less 2
  const int wide = oz::moduli_needed(40, 30, 1000);
  EXPECT_GE(oz::bits_for(wide, 1000), 40 + 30 + 106);
  EXPECT_LT(oz::bits_for(wide - 1, 1000), 40 + 30 + 106);
  // More range or more K never takes fewer moduli.
  int last = 0;
  for (int range = 0; range <= 120; range += 5) {
    const int count = oz::moduli_needed(range, range / 2, 4096);
    if (count == 0) break;
    EXPECT_GE(count, last);
    last = count;
  }
  EXPECT_EQ(last, oz::moduli_needed(80, 40, 4096));
  EXPECT_EQ(oz::moduli_needed(200, 200, 2), 0);  // more than the kernel has: refused
  EXPECT_EQ(oz::moduli_needed(0, 0, std::int64_t(1) << 40), 20);  // 146 bits, less 2
}

TEST(OzakiModuli, BitsSplitByNeed) {
  const oz::Bits exact = oz::split_bits(oz::moduli_needed(20, 3, 64), 20, 3, 64);
  EXPECT_EQ(exact.a, 20 + 53);
  EXPECT_GE(exact.b, 3 + 53);
  const oz::Bits short_of = oz::split_bits(8, 20, 3, 64);  // 63 bits less 2 and 6
  EXPECT_EQ(short_of.a + short_of.b, oz::bits_for(8, 64));
  EXPECT_EQ(short_of.a, oz::bits_for(8, 64) / 2);           // shared evenly
  const oz::Bits lopsided = oz::split_bits(20, 0, 200, 1);  // A needs 53, B more than is left
  EXPECT_EQ(lopsided.a, 53);
  EXPECT_EQ(lopsided.b, oz::bits_for(20, 1) - 53);
}

TEST(OzakiReconstruction, GarnerGivesTheIntegerBack) {
  std::mt19937_64 random(11);
  const oz::Garner g = oz::Garner::of(10);  // about 79 bits: any int64 and its negation
  for (int trial = 0; trial < 2000; ++trial) {
    const std::int64_t x = std::int64_t(random() >> (trial % 60 + 2)) * (trial % 2 ? -1 : 1);
    int r[oz::kMaxModuli], v[oz::kMaxModuli];
    for (int p = 0; p < g.count; ++p) {
      const int rest = int(x % g.modulus[p]);
      r[p] = rest < 0 ? rest + g.modulus[p] : rest;
    }
    oz::garner_digits(g, r, v);
    EXPECT_EQ(oz::horner_value(g, v), double(x)) << x;
  }
}

TEST(OzakiReconstruction, ResiduesOfIntegersPastInt64) {
  // 3^30 2^100: its residues from its bits against those of its factors.
  const double big = std::ldexp(std::pow(3.0, 30), 100);
  for (int p = 0; p < oz::kMaxModuli; ++p) {
    const int modulus = oz::kModuli[p];
    int expected = 1;
    for (int e = 0; e < 30; ++e) expected = expected * 3 % modulus;
    expected = expected * oz::pow2_mod(100, modulus) % modulus;
    EXPECT_EQ(oz::residue(big, modulus), oz::balanced(expected, modulus)) << modulus;
    EXPECT_EQ(oz::residue(-big, modulus), oz::balanced(-expected, modulus)) << modulus;
  }
  EXPECT_EQ(oz::exponent_of(std::numeric_limits<double>::denorm_min()), -1073);
  EXPECT_EQ(oz::exponent_of(1.0), 1);
  EXPECT_EQ(oz::scale2(std::numeric_limits<double>::denorm_min(), 1074 + 1000),
            std::ldexp(1.0, 1000));
}

Case ozaki_case(Shape shape) {
  return {"ozaki", shape, Layout::Right, Trans::N, Trans::N, Precision::Double, {1.5, -0.5}, {}};
}

TEST(Ozaki, ExponentsSpreadWithinRowsAndColumns) {
  for (const Shape shape : {Shape{17, 31, 13}, Shape{40, 9, 129}}) {
    for (const Scaling scaling : {Scaling{1.0, 0.0}, Scaling{-2.0, 1.0}}) {
      Case c = ozaki_case(shape);
      c.scaling = scaling;
      c.wide = true;
      c.binades = 16;
      check_layouts_and_ops(c);
    }
  }
}

TEST(Ozaki, ZerosAndSubnormals) {
  for (const Scaling scaling : {Scaling{1.0, 0.0}, Scaling{1.5, -0.5}}) {
    Case c = ozaki_case({23, 19, 37});
    c.scaling = scaling;
    c.zeros_and_subnormals = true;
    check_layouts_and_ops(c);
  }
}

TEST(Ozaki, ProductsPastOneTeamTile) {
  // More than one of the tensor cores' 128 x 128 team tiles in m and n, and K blocks of 64 with a
  // partial last one, in every op and layout.
  check_layouts_and_ops(ozaki_case({150, 140, 200}));
}

TEST(Ozaki, KPastAReductionOfTheSums) {
  // The int32 sums of products of residues are reduced every 2^16 of K (2^17 could pass int32).
  check_case(ozaki_case({2, 3, (1 << 16) + 70}));
}

TEST(Ozaki, CountsOfModuliGiven) {
  Case c = ozaki_case({17, 31, 13});
  c.launch.moduli = oz::kMaxModuli;  // more than the data needs: as exact
  check_layouts_and_ops(c);
  using Registry = kernels::Registry<TestSpace, double, Kokkos::LayoutRight>;
  // One modulus leaves no bits at K = 1000: refused by the plan, by the count.
  try {
    Registry::plan("ozaki", {std::nullopt, 0, 0, 0, 1}, {8, 8, 1000});
    ADD_FAILURE() << "one modulus at k = 1000 was planned";
  } catch (const kernels::LaunchError& e) {
    EXPECT_EQ(e.limit(), kernels::LaunchLimit::Moduli) << e.what();
  }
  EXPECT_THROW(
      (kernels::Registry<TestSpace, float, Kokkos::LayoutRight>::plan("ozaki", {}, {8, 8, 8})),
      std::invalid_argument);
}

/// Runs ozaki on an m x k A of `a` (row-major) times a k x n B of ones, resolving its launch first.
void run_ozaki(int m, int n, int k, const std::vector<double>& a, int moduli = 0) {
  using Registry = kernels::Registry<TestSpace, double, Kokkos::LayoutRight>;
  using Operands = Registry::Operands;
  typename Operands::matrix A("A", m, k), B("B", k, n), C("C", m, n);
  const auto host = Kokkos::create_mirror_view(A);
  for (int e = 0; e < m * k; ++e) host(e / k, e % k) = a[e];
  Kokkos::deep_copy(A, host);
  Kokkos::deep_copy(B, 1.0);
  const Operands g = Operands::of(A, false, B, false, C, 1.0, 0.0);
  LaunchRequest request;
  request.moduli = moduli;
  const LaunchConfig cfg = Registry::plan("ozaki", request, {m, n, k});
  typename Registry::Partials partials("partials", cfg.partial_elements);
  const LaunchConfig resolved = Registry::resolve("ozaki", cfg, g);
  EXPECT_NE(resolved.moduli, 0);
  const std::string products =
      kernels::runs_on_cpu<TestSpace>() ? "int8 products" : "mma.m16n8k32.s8";
  EXPECT_EQ(resolved.instruction, products + ", " + std::to_string(resolved.moduli) + " moduli");
  Registry::run("ozaki", cfg, g, partials);
}

TEST(Ozaki, RefusesDataThatNeedsMoreModuliThanItHas) {
  // A row of 1 and 2^-300: exact only with 300 + 106 bits, more than 32 moduli hold.
  std::vector<double> a = {1.0, std::ldexp(1.0, -300), 0.5, 0.25};
  try {
    run_ozaki(2, 3, 2, a);
    ADD_FAILURE() << "data of 300 binades a row ran";
  } catch (const kernels::LaunchError& e) {
    EXPECT_EQ(e.limit(), kernels::LaunchLimit::Moduli);
    EXPECT_NE(std::string(e.what()).find("300 binades within a row of op(A)"), std::string::npos)
        << e.what();
  }
  // A count given runs as given, as any result, validated as any other.
  EXPECT_NO_THROW(run_ozaki(2, 3, 2, a, oz::kMaxModuli));
}

TEST(Ozaki, RefusesInfAndNaN) {
  for (const double bad :
       {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_THROW(run_ozaki(2, 3, 2, {1.0, 2.0, bad, 0.5}), std::domain_error) << bad;
  }
}

}  // namespace
}  // namespace tilemm::test
