// Validation, in one place, by two checks that must both pass: every kernel's C against a
// double-precision KokkosBlas::gemm on the same inputs, element by element; and Freivalds' check,
// which trusts no library: C x against alpha A (B x) + beta C0 x for three random vectors x,
// computed on the host in long double. Both have an error bound that scales with K and the
// precision's machine epsilon; a result passes when both errors are at most (K + 2) * eps.
//
// Element by element, with R the reference and C0 the initial C,
//     err(i,j) = |C(i,j) - R(i,j)| / ( |alpha| ||op(A)(i,:)||_2 ||op(B)(:,j)||_2 + |beta| |C0(i,j)|
//                                       + (1 + |alpha|) * eta / eps ).
// The first two terms bound sum_l |a_il b_lj| (Cauchy-Schwarz) and |beta c0_ij|, so err <= (K + 2)
// eps is the classic forward error bound of a K-term dot product, gamma_K, plus the scaling by
// alpha and the addition of beta * C0, doubled for the reference's own rounding in double problems.
// The last term is the rounding of products that underflow: each operation that gives a subnormal
// may err by up to eta, the smallest subnormal (FLT_TRUE_MIN, DBL_TRUE_MIN), absolutely, so an
// element may err by (K + 2) (1 + |alpha|) eta besides (K products, alpha's scaling and beta's
// term; alpha applied to the products or to their sum), which (K + 2) eps times this term is; eta /
// eps is the smallest normal number of the precision. The norms are those of each row and column
// divided by its largest magnitude, kept beside that magnitude, so that neither squares that
// underflow (A of 1e-170) nor ones that overflow (A of 1e160) reach the bound.
//
// Freivalds' check: for each x, with |x_j| in [0.5, 1] of random sign,
//     ferr = max_i |(C x)_i - (alpha A (B x) + beta C0 x)_i| / sum_j |x_j| d(i,j),
// where d(i,j) = |alpha| sum_l |a_il| |b_lj| + |beta| |c0_ij| + (1 + |alpha|) eta / eps is the
// element's bound as above with the exact sum in place of Cauchy-Schwarz: each element within its
// bound keeps ferr within (K + 2) eps. The sums are in long double (64-bit significand, and a
// range no double or float product leaves), whose own rounding is 2^-11 of double's eps. A wrong
// element of C changes (C x)_i by its error times |x_j| >= 0.5; an error of less than its row's
// bound may pass, as in any check by bound. NaN or Inf in C, or in the reference, never passes.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tilemm/kernels/kokkos_kernels.hpp"
#include "tilemm/kokkos_compat.hpp"
#include "tilemm/matrices.hpp"
#include "tilemm/types.hpp"

namespace tilemm {

inline double tolerance(Precision precision, std::int64_t k) {
  const double eps = precision == Precision::Float ? std::numeric_limits<float>::epsilon()
                                                   : std::numeric_limits<double>::epsilon();
  return static_cast<double>(k + 2) * eps;
}

template <class ExecSpace, class Layout>
struct Reference {
  using device_type = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  Kokkos::View<double**, Layout, device_type> c;  // alpha op(A) op(B) + beta C0, in double
  // ||op(A)(i, :)||_2 = a_row_scale(i) * a_row_norms(i); the same for op(B)'s columns.
  Kokkos::View<double*, device_type> a_row_scale, a_row_norms;
  Kokkos::View<double*, device_type> b_col_scale, b_col_norms;
  double alpha = 1, beta = 0;
  double floor = 0;  // (1 + |alpha|) eta / eps of the problem's precision (above)
};

/// The Euclidean norm of each row of op(X) (or of each column, with columns = true), as its
/// largest magnitude (`scale`) and the norm of the row divided by it (at most sqrt(len)).
template <class ExecSpace, class Op, class Norms>
void op_norms(const Op& x, bool columns, const Norms& scale, const Norms& norms) {
  Kokkos::parallel_for(
      "tilemm::norms", Kokkos::RangePolicy<ExecSpace>(0, static_cast<int>(norms.extent(0))),
      KOKKOS_LAMBDA(const int i) {
        const int len = columns ? x.rows() : x.cols();
        double largest = 0;
        for (int l = 0; l < len; ++l) {
          const double v = columns ? x(l, i) : x(i, l);
          largest = v > largest ? v : (-v > largest ? -v : largest);
        }
        double sum = 0;
        for (int l = 0; l < len && largest > 0; ++l) {
          const double v = (columns ? x(l, i) : x(i, l)) / largest;
          sum += v * v;
        }
        scale(i) = largest;
        norms(i) = compat::sqrt(sum);
      });
}

/// The reference for operands `g`, whose C holds the initial C0.
template <class ExecSpace, class Scalar, class Layout>
Reference<ExecSpace, Layout> make_reference(
    const kernels::GemmOperands<ExecSpace, Scalar, Layout>& g) {
  using Double = kernels::GemmOperands<ExecSpace, double, Layout>;
  Reference<ExecSpace, Layout> ref;
  ref.alpha = g.alpha;
  ref.beta = g.beta;
  ref.floor = (1 + std::fabs(ref.alpha)) * static_cast<double>(std::numeric_limits<Scalar>::min());
  ref.c = decltype(ref.c)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("tilemm::reference")), g.m(),
      g.n());
  Double d;
  d.alpha = g.alpha;
  d.beta = g.beta;
  d.c = ref.c;
  if constexpr (std::is_same<Scalar, double>::value) {
    d.a = g.a;
    d.b = g.b;
    if (g.beta != 0) Kokkos::deep_copy(ref.c, g.c);
  } else {
    typename Double::matrix a("tilemm::a64", g.a.x.extent(0), g.a.x.extent(1));
    typename Double::matrix b("tilemm::b64", g.b.x.extent(0), g.b.x.extent(1));
    convert<ExecSpace>(g.a.x, a);
    convert<ExecSpace>(g.b.x, b);
    if (g.beta != 0) convert<ExecSpace>(g.c, ref.c);
    d.a = {a, g.a.transposed};
    d.b = {b, g.b.transposed};
  }
  kernels::kokkos_kernels(d);

  ref.a_row_scale = decltype(ref.a_row_scale)("tilemm::a_row_scale", g.m());
  ref.a_row_norms = decltype(ref.a_row_norms)("tilemm::a_row_norms", g.m());
  ref.b_col_scale = decltype(ref.b_col_scale)("tilemm::b_col_scale", g.n());
  ref.b_col_norms = decltype(ref.b_col_norms)("tilemm::b_col_norms", g.n());
  op_norms<ExecSpace>(g.a, /*columns=*/false, ref.a_row_scale, ref.a_row_norms);
  op_norms<ExecSpace>(g.b, /*columns=*/true, ref.b_col_scale, ref.b_col_norms);
  ExecSpace().fence();
  return ref;
}

/// max over (i, j) of err(i, j) (see above); +Inf when any element of C or of the reference is NaN
/// or Inf.
template <class ExecSpace, class Layout, class Matrix>
double max_scaled_error(const Reference<ExecSpace, Layout>& ref, const Matrix& c,
                        const Matrix& c0) {
  const auto r = ref.c;
  const auto sa = ref.a_row_scale, ra = ref.a_row_norms;
  const auto sb = ref.b_col_scale, cb = ref.b_col_norms;
  const double floor = ref.floor;
  const double abs_alpha = ref.alpha < 0 ? -ref.alpha : ref.alpha;
  const double abs_beta = ref.beta < 0 ? -ref.beta : ref.beta;
  const std::int64_t cols = c.extent(1);
  double worst = 0;
  Kokkos::parallel_reduce(
      "tilemm::max_scaled_error",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
          0, std::int64_t(c.extent(0)) * cols),
      KOKKOS_LAMBDA(const std::int64_t e, double& max_err) {
        const std::int64_t i = e / cols, j = e % cols;
        const double v = static_cast<double>(c(i, j));
        double err = HUGE_VAL;
        // False for NaN and +-Inf, in C or in the reference (a vendor call that left its C
        // unwritten): either fails, rather than vanishing from the maximum as a NaN would.
        if (v - v == 0 && r(i, j) - r(i, j) == 0) {
          const double diff = v > r(i, j) ? v - r(i, j) : r(i, j) - v;
          // Scales multiplied apart from the norms: their product under- or overflows only where
          // the bound itself does.
          double bound = abs_alpha * (sa(i) * sb(j)) * (ra(i) * cb(j)) + floor;
          if (abs_beta != 0) {  // with beta == 0, C0 holds poison that must not count
            const double initial = static_cast<double>(c0(i, j));
            bound += abs_beta * (initial < 0 ? -initial : initial);
          }
          err = diff == 0 ? 0 : diff / bound;
        }
        if (err > max_err) max_err = err;
      },
      Kokkos::Max<double>(worst));
  return worst;
}

/// Freivalds' check of a product (above), on the host in long double. Built once per problem from
/// op(A), op(B) and C0 (host views, read through their transposes); check() then costs one pass
/// over C per vector.
class Freivalds {
 public:
  static constexpr int kVectors = 3;

  /// `min_normal` is the smallest normal number of the problem's precision.
  template <class HostA, class HostB, class HostC>
  Freivalds(const HostA& a, bool ta, const HostB& b, bool tb, const HostC& c0, double alpha,
            double beta, double min_normal, std::uint64_t seed)
      : m_(c0.extent(0)), n_(c0.extent(1)) {
    const std::int64_t k = ta ? a.extent(0) : a.extent(1);
    const auto op_a = [&](std::int64_t i, std::int64_t l) -> long double {
      return ta ? a(l, i) : a(i, l);
    };
    const auto op_b = [&](std::int64_t l, std::int64_t j) -> long double {
      return tb ? b(j, l) : b(l, j);
    };
    const long double abs_alpha = std::fabs(alpha), abs_beta = std::fabs(beta);
    const long double floor = (1 + abs_alpha) * min_normal;
    std::mt19937_64 random(seed ^ 0x46726569766c6473ULL);
    std::uniform_real_distribution<double> magnitude(0.5, 1.0);
    for (int v = 0; v < kVectors; ++v) {
      std::vector<long double> x(n_), bx(k, 0), bx_abs(k, 0), z(m_, 0), d(m_, 0);
      long double x_abs_sum = 0;
      for (auto& value : x) {
        value = (random() & 1 ? 1 : -1) * magnitude(random);
        x_abs_sum += std::fabs(value);
      }
      for (std::int64_t l = 0; l < k; ++l) {
        for (std::int64_t j = 0; j < n_; ++j) {
          bx[l] += op_b(l, j) * x[j];
          bx_abs[l] += std::fabs(op_b(l, j) * x[j]);
        }
      }
      for (std::int64_t i = 0; i < m_; ++i) {
        long double abx = 0, abx_abs = 0, c0x = 0, c0x_abs = 0;
        for (std::int64_t l = 0; l < k; ++l) {
          abx += op_a(i, l) * bx[l];
          abx_abs += std::fabs(op_a(i, l)) * bx_abs[l];
        }
        for (std::int64_t j = 0; beta != 0 && j < n_; ++j) {
          c0x += static_cast<long double>(c0(i, j)) * x[j];
          c0x_abs += std::fabs(static_cast<long double>(c0(i, j)) * x[j]);
        }
        z[i] = alpha * abx + beta * c0x;
        d[i] = abs_alpha * abx_abs + abs_beta * c0x_abs + floor * x_abs_sum;
      }
      x_[v] = std::move(x);
      z_[v] = std::move(z);
      d_[v] = std::move(d);
    }
  }

  /// The largest ferr of C (a host view) over the vectors; +Inf where C holds a NaN or an Inf.
  template <class HostC>
  double error(const HostC& c) const {
    long double worst = 0;
    for (int v = 0; v < kVectors; ++v) {
      for (std::int64_t i = 0; i < m_; ++i) {
        long double cx = 0;
        for (std::int64_t j = 0; j < n_; ++j) cx += static_cast<long double>(c(i, j)) * x_[v][j];
        if (!std::isfinite(cx)) return HUGE_VAL;
        worst = std::max(worst, std::fabs(cx - z_[v][i]) / d_[v][i]);
      }
    }
    return static_cast<double>(worst);
  }

 private:
  std::int64_t m_, n_;
  std::vector<long double> x_[kVectors], z_[kVectors], d_[kVectors];
};

/// Freivalds' check of a product in `Scalar` whose operands and C0 are views in any memory space:
/// host copies are made once here.
template <class Scalar, class A, class B, class C0>
Freivalds make_freivalds(const A& a, bool ta, const B& b, bool tb, const C0& c0, double alpha,
                         double beta, std::uint64_t seed) {
  const auto host = [](const auto& x) {
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  };
  return Freivalds(host(a), ta, host(b), tb, host(c0), alpha, beta,
                   static_cast<double>(std::numeric_limits<Scalar>::min()), seed);
}

/// Whether a reference C (a view in any memory space) passes Freivalds' check `f` within the
/// double bound of a product of depth k: the reference comes from the vendor's BLAS too, and where
/// the BLAS is wrong, comparing with it proves nothing.
template <class Reference>
bool reference_passes(const Freivalds& f, const Reference& c, std::int64_t k) {
  return f.error(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c)) <=
         tolerance(Precision::Double, k);
}

}  // namespace tilemm
