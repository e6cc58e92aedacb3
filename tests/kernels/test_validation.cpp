// The validation's two checks (validate.hpp) pinned at their thresholds: a correct C moved, in one
// element, to 0.5x of a check's threshold passes, and to 1.5x fails, in both precisions, at several
// K, on random data and on structured data whose products are exact. The thresholds are computed
// here in long double from the formulas validate.hpp states, so that a bound loosened or tightened
// by a third or more (a square root dropped from the operand norms loosens it K/3-fold) fails.
// And NaN in C or in the reference never passes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "backend_dispatch.hpp"
#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/matrices.hpp"
#include "tilemm/validate.hpp"

namespace tilemm::test {
namespace {

/// A product alpha A B + beta C0 (op NN, LayoutRight) on the backend under test, its exact result
/// and both checks' element bounds in long double on the host, and C set from them.
template <class Scalar>
class Product {
 public:
  using Operands = kernels::GemmOperands<TestSpace, Scalar, Kokkos::LayoutRight>;
  using Matrix = typename Operands::matrix;

  /// Random values in [-1, 1), or with `structured` small integers (-2 to 2, -3 to 3), whose
  /// products and sums the precisions hold exactly.
  Product(int m, int n, int k, bool structured, double alpha, double beta)
      : m_(m), n_(n), k_(k), alpha_(alpha), beta_(beta) {
    a_ = Matrix("A", m, k);
    b_ = Matrix("B", k, n);
    c0_ = Matrix("C0", m, n);
    c_ = Matrix("C", m, n);
    fill_random<TestSpace>(a_, 5, MatrixId::A);
    fill_random<TestSpace>(b_, 5, MatrixId::B);
    fill_random<TestSpace>(c0_, 5, MatrixId::C);
    const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a_);
    const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b_);
    const auto c0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c0_);
    if (structured) {
      for (int i = 0; i < m; ++i)
        for (int l = 0; l < k; ++l) a(i, l) = Scalar((i + 2 * l) % 5 - 2);
      for (int l = 0; l < k; ++l)
        for (int j = 0; j < n; ++j) b(l, j) = Scalar((3 * l + j) % 7 - 3);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) c0(i, j) = Scalar((i + j) % 3 - 1);
      Kokkos::deep_copy(a_, a);
      Kokkos::deep_copy(b_, b);
      Kokkos::deep_copy(c0_, c0);
    }
    exact(a, b, c0);
    reference_ = make_reference(Operands::of(a_, false, b_, false, c0_, alpha, beta));
    freivalds_.emplace(make_freivalds<Scalar>(a_, false, b_, false, c0_, alpha, beta, 5));
  }

  /// (k + 2) eps of the precision: both checks' threshold.
  long double tolerance() const { return tilemm::tolerance(precision(), k_); }

  /// C = the exact result rounded to Scalar, with element (i, j) moved by `share` of the
  /// threshold of the element check (`freivalds` false) or of Freivalds' check.
  void set_c(int i, int j, long double share, bool freivalds) {
    const auto host = Kokkos::create_mirror_view(c_);
    for (int r = 0; r < m_; ++r)
      for (int c = 0; c < n_; ++c) host(r, c) = static_cast<Scalar>(exact_[at(r, c)]);
    const long double bound = freivalds ? sum_bound_[at(i, j)] : norm_bound_[at(i, j)];
    host(i, j) = static_cast<Scalar>(exact_[at(i, j)] + share * tolerance() * bound);
    Kokkos::deep_copy(c_, host);
  }

  /// The element check's and Freivalds' errors of C, over the threshold.
  double element_share() const { return max_scaled_error(reference_, c_, c0_) / tolerance(); }
  double freivalds_share() const {
    return freivalds_->error(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_)) /
           tolerance();
  }

 private:
  static Precision precision() {
    return sizeof(Scalar) == 4 ? Precision::Float : Precision::Double;
  }
  std::size_t at(int i, int j) const { return std::size_t(i) * n_ + j; }

  /// The exact result and each element's bound: the element check's |alpha| ||A(i,:)||_2
  /// ||B(:,j)||_2 + |beta| |C0(i,j)| + (1 + |alpha|) eta / eps, and Freivalds' with the sum
  /// |alpha| sum_l |A(i,l) B(l,j)| in place of the norms.
  template <class Host>
  void exact(const Host& a, const Host& b, const Host& c0) {
    const long double floor =
        (1 + std::fabs(alpha_)) * static_cast<long double>(std::numeric_limits<Scalar>::min());
    for (int i = 0; i < m_; ++i) {
      for (int j = 0; j < n_; ++j) {
        long double sum = 0, magnitudes = 0, a_norm = 0, b_norm = 0;
        for (int l = 0; l < k_; ++l) {
          const long double x = a(i, l), y = b(l, j);
          sum += x * y;
          magnitudes += std::fabs(x * y);
          a_norm += x * x;
          b_norm += y * y;
        }
        const long double initial = std::fabs(beta_ * static_cast<long double>(c0(i, j)));
        exact_.push_back(alpha_ * sum + beta_ * static_cast<long double>(c0(i, j)));
        norm_bound_.push_back(std::fabs(alpha_) * std::sqrt(a_norm) * std::sqrt(b_norm) + initial +
                              floor);
        sum_bound_.push_back(std::fabs(alpha_) * magnitudes + initial + floor);
      }
    }
  }

  int m_, n_, k_;
  long double alpha_, beta_;
  Matrix a_, b_, c0_, c_;
  Reference<TestSpace, Kokkos::LayoutRight> reference_;
  std::optional<Freivalds> freivalds_;
  std::vector<long double> exact_, norm_bound_, sum_bound_;
};

/// Each check at 0.5x and 1.5x of its threshold on a product of depth k. The element check looks
/// at a 5 x 4 C; Freivalds' at a 5 x 1 C, where the vector's one element cancels from its error
/// and its bound, so that its error is the element's share exactly.
template <class Scalar>
void expect_thresholds(int k, bool structured, double alpha, double beta) {
  const std::string what = std::string(sizeof(Scalar) == 4 ? "float" : "double") +
                           " k=" + std::to_string(k) + (structured ? " structured" : " random") +
                           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
  // Rounding C to the precision moves the shares by up to 1 / (2 (k + 2)) (a sixth at k = 1).
  const double slack = 0.2;
  Product<Scalar> wide(5, 4, k, structured, alpha, beta);
  Product<Scalar> narrow(5, 1, k, structured, alpha, beta);
  for (const double share : {0.5, 1.5}) {
    wide.set_c(3, 2, share, /*freivalds=*/false);
    EXPECT_NEAR(wide.element_share(), share, slack) << what;
    EXPECT_EQ(wide.element_share() <= 1, share < 1) << what;
    narrow.set_c(3, 0, share, /*freivalds=*/true);
    EXPECT_NEAR(narrow.freivalds_share(), share, slack) << what;
    EXPECT_EQ(narrow.freivalds_share() <= 1, share < 1) << what;
  }
}

TEST(Validation, BothChecksPassAtHalfTheirThresholdAndFailAtOneAndAHalf) {
  for (const int k : {1, 9, 129, 1000}) {
    for (const bool structured : {false, true}) {
      expect_thresholds<float>(k, structured, 1.5, -0.5);
      expect_thresholds<double>(k, structured, 1.5, -0.5);
    }
  }
  expect_thresholds<float>(129, false, -2.0, 0.0);
  expect_thresholds<double>(129, true, 0.75, 1.0);
}

// Validation fails on a NaN wherever it is: in C, or in the reference (where a NaN difference
// would drop out of the maximum).
TEST(Validation, NaNInCOrReferenceNeverPasses) {
  using Operands = kernels::GemmOperands<TestSpace, double, Kokkos::LayoutRight>;
  using Matrix = typename Operands::matrix;
  Matrix A("A", 5, 7), B("B", 7, 3), C0("C0", 5, 3), C("C", 5, 3);
  fill_random<TestSpace>(A, 7, MatrixId::A);
  fill_random<TestSpace>(B, 7, MatrixId::B);
  fill_nan<TestSpace>(C0);
  Operands g;
  g.a = {A, false};
  g.b = {B, false};
  g.c = C0;
  auto reference = make_reference(g);
  Kokkos::deep_copy(C, reference.c);
  EXPECT_EQ(max_scaled_error(reference, C, C0), 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Kokkos::deep_copy(Kokkos::subview(C, 2, 1), nan);
  EXPECT_EQ(max_scaled_error(reference, C, C0), HUGE_VAL);
  Kokkos::deep_copy(C, reference.c);
  Kokkos::deep_copy(Kokkos::subview(reference.c, 4, 2), nan);
  EXPECT_EQ(max_scaled_error(reference, C, C0), HUGE_VAL);
}

}  // namespace
}  // namespace tilemm::test
