// The operands of C = alpha * op(A) * op(B) + beta * C, as every kernel sees them.
#pragma once

#include <cstdint>

#include <Kokkos_Core.hpp>

namespace tilemm::kernels {

/// op(X): a read-only matrix or its transpose, indexed as op(X)(row, col). kTranspose 0 or 1 fixes
/// the op at compile time (a kernel compiled for one op: no run-time choice left in its indexing);
/// -1 leaves it to `transposed`.
template <class View, int kTranspose = -1>
struct OpView {
  View x;
  bool transposed = false;
  KOKKOS_INLINE_FUNCTION bool is_transposed() const {
    if constexpr (kTranspose < 0) {
      return transposed;
    } else {
      return kTranspose == 1;
    }
  }

  using value_type = typename View::non_const_value_type;

  KOKKOS_INLINE_FUNCTION value_type operator()(int row, int col) const {
    return is_transposed() ? x(col, row) : x(row, col);
  }
  KOKKOS_INLINE_FUNCTION int rows() const {
    return static_cast<int>(is_transposed() ? x.extent(1) : x.extent(0));
  }
  KOKKOS_INLINE_FUNCTION int cols() const {
    return static_cast<int>(is_transposed() ? x.extent(0) : x.extent(1));
  }
  /// The address of op(X)(row, col).
  KOKKOS_INLINE_FUNCTION const value_type* pointer(int row, int col) const {
    return is_transposed() ? &x(col, row) : &x(row, col);
  }
  /// True when op(X)(row, col) and op(X)(row, col + 1) are neighbours in memory.
  KOKKOS_INLINE_FUNCTION bool contiguous_along_cols() const {
    return std::is_same<typename View::array_layout, Kokkos::LayoutRight>::value != is_transposed();
  }
  /// The distance in memory between X's lines (its rows when LayoutRight, its columns otherwise).
  KOKKOS_INLINE_FUNCTION int leading() const {
    constexpr bool right = std::is_same<typename View::array_layout, Kokkos::LayoutRight>::value;
    return static_cast<int>(right ? x.stride(0) : x.stride(1));
  }
  /// True when every run of `width` neighbours that starts at a multiple of `width` along the
  /// contiguous dimension is aligned to `width` scalars, so that one wide load reads it (host).
  bool runs_aligned(int width) const {
    const auto address = reinterpret_cast<std::uintptr_t>(x.data());
    return leading() % width == 0 && address % (width * sizeof(value_type)) == 0;
  }
};

template <class ExecSpace, class Scalar, class Layout>
struct GemmOperands {
  using execution_space = ExecSpace;
  using scalar_type = Scalar;
  using layout = Layout;
  // The device type names the backend too, so that Kokkos Kernels runs on it (not on the memory
  // space's default backend: Serial and OpenMP share HostSpace).
  using device_type = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  using matrix = Kokkos::View<Scalar**, Layout, device_type>;
  using const_matrix = Kokkos::View<const Scalar**, Layout, device_type>;

  using OpMatrix = OpView<const_matrix>;
  OpMatrix a, b;  // op(A) is m x k, op(B) is k x n
  matrix c;       // m x n
  Scalar alpha = 1, beta = 0;

  /// The operands over views a, b and c, with op(A) = A^T where `ta` and op(B) = B^T where `tb`;
  /// alpha and beta, given in double, are rounded to Scalar, the precision the product runs in.
  static GemmOperands of(const const_matrix& a, bool ta, const const_matrix& b, bool tb,
                         const matrix& c, double alpha, double beta) {
    GemmOperands g;
    g.a = {a, ta};
    g.b = {b, tb};
    g.c = c;
    g.alpha = static_cast<Scalar>(alpha);
    g.beta = static_cast<Scalar>(beta);
    return g;
  }

  KOKKOS_INLINE_FUNCTION int m() const { return static_cast<int>(c.extent(0)); }
  KOKKOS_INLINE_FUNCTION int n() const { return static_cast<int>(c.extent(1)); }
  KOKKOS_INLINE_FUNCTION int k() const { return a.cols(); }
};

/// C(i,j) <- alpha * acc + beta * C(i,j). With beta == 0, C is not read (BLAS semantics): a NaN
/// already in C must not reach the result.
template <class Scalar>
KOKKOS_INLINE_FUNCTION void scale_into(Scalar& c, Scalar acc, Scalar alpha, Scalar beta) {
  c = beta == Scalar(0) ? alpha * acc : alpha * acc + beta * c;
}

}  // namespace tilemm::kernels
