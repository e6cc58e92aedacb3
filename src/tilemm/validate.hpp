// Validation, in one place: every kernel's C against a double-precision KokkosBlas::gemm on the
// same inputs, with an error bound that scales with K and the precision's machine epsilon.
//
// For each element, with R the reference and C0 the initial C,
//     err(i,j) = |C(i,j) - R(i,j)| / ( |alpha| ||op(A)(i,:)||_2 ||op(B)(:,j)||_2 + |beta| |C0(i,j)|
//     )
// and a result passes when max err <= (K + 2) * eps. The denominator bounds sum_l |a_il b_lj|
// (Cauchy-Schwarz), so this is the classic forward error bound of a K-term dot product, gamma_K,
// plus the scaling by alpha and the addition of beta * C0, doubled for the reference's own rounding
// in double problems. NaN or Inf in C, or in the reference, never passes.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

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
  Kokkos::View<double**, Layout, device_type> c;   // alpha op(A) op(B) + beta C0, in double
  Kokkos::View<double*, device_type> a_row_norms;  // ||op(A)(i, :)||_2
  Kokkos::View<double*, device_type> b_col_norms;  // ||op(B)(:, j)||_2
  double alpha = 1, beta = 0;
};

/// Euclidean norm of each row of op(X) (or of each column, with columns = true).
template <class ExecSpace, class Op, class Norms>
void op_norms(const Op& x, bool columns, const Norms& norms) {
  Kokkos::parallel_for(
      "tilemm::norms", Kokkos::RangePolicy<ExecSpace>(0, static_cast<int>(norms.extent(0))),
      KOKKOS_LAMBDA(const int i) {
        const int len = columns ? x.rows() : x.cols();
        double sum = 0;
        for (int l = 0; l < len; ++l) {
          const double v = columns ? x(l, i) : x(i, l);
          sum += v * v;
        }
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

  ref.a_row_norms = decltype(ref.a_row_norms)("tilemm::a_row_norms", g.m());
  ref.b_col_norms = decltype(ref.b_col_norms)("tilemm::b_col_norms", g.n());
  op_norms<ExecSpace>(g.a, /*columns=*/false, ref.a_row_norms);
  op_norms<ExecSpace>(g.b, /*columns=*/true, ref.b_col_norms);
  ExecSpace().fence();
  return ref;
}

/// max over (i, j) of err(i, j) (see above); +Inf when any element of C or of the reference is NaN
/// or Inf.
template <class ExecSpace, class Layout, class Matrix>
double max_scaled_error(const Reference<ExecSpace, Layout>& ref, const Matrix& c,
                        const Matrix& c0) {
  const auto r = ref.c;
  const auto ra = ref.a_row_norms;
  const auto cb = ref.b_col_norms;
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
          double bound = abs_alpha * ra(i) * cb(j);
          if (abs_beta != 0) {  // with beta == 0, C0 holds poison that must not count
            const double initial = static_cast<double>(c0(i, j));
            bound += abs_beta * (initial < 0 ? -initial : initial);
          }
          err = diff == 0 ? 0 : diff / (bound > 0 ? bound : DBL_MIN);
        }
        if (err > max_err) max_err = err;
      },
      Kokkos::Max<double>(worst));
  return worst;
}

}  // namespace tilemm
