// The kernel tests' cases run and checked (kernel_cases.hpp): inputs generated on the backend
// under test between guard regions of NaN, the kernel run through the registry with its partial
// tiles poisoned, and C compared on the host with a reference in long double.
#include "kernel_cases.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "backend_dispatch.hpp"
#include "tilemm/kernels/registry.hpp"
#include "tilemm/matrices.hpp"
#include "tilemm/validate.hpp"

namespace tilemm::test {

std::string describe(const Case& c) {
  std::ostringstream os;
  os << c.kernel << " " << c.shape.m << "x" << c.shape.n << "x" << c.shape.k << " "
     << to_string(c.precision) << " " << to_string(c.layout) << " op=" << to_string(c.ta)
     << to_string(c.tb) << " alpha=" << c.scaling.alpha << " beta=" << c.scaling.beta;
  if (c.launch.tile) os << " tile=" << c.launch.tile->to_string();
  if (c.launch.team_size) os << " team_size=" << c.launch.team_size;
  if (c.launch.split_k) os << " split_k=" << c.launch.split_k;
  if (c.launch.split_tiles) os << " split_tiles=" << c.launch.split_tiles;
  if (c.shifted) os << " shifted";
  if (c.wide) os << " wide 2^+-" << c.binades;
  if (c.zeros_and_subnormals) os << " zeros and subnormals";
  return os.str();
}

namespace {

/// What a kernel run produced, on the host, with the inputs it was given.
template <class Scalar>
struct Outcome {
  std::vector<Scalar> c;  // C row-major, after the run
  LaunchConfig launch;
  double library_error = 0;  // tilemm's own validation (validate.hpp) of the same result
};

/// x(i, j) *= 2^e with e from -binades to binades varying along both i and j: data of a wide
/// dynamic range, where a product's low-order bits matter (tensor-tiled's split TF32 keeps them).
template <class ExecSpace, class View>
void scale_widely(const View& x, int binades) {
  using Scalar = typename View::non_const_value_type;
  for_each_index<ExecSpace>(
      "scale_widely", x.extent(0), x.extent(1),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        Scalar factor = 1;
        for (int e = int((7 * i + 3 * j) % (2 * binades + 1)) - binades; e != 0;
             e += e > 0 ? -1 : 1)
          factor *= e > 0 ? Scalar(2) : Scalar(0.5);
        x(i, j) *= factor;
      });
}

/// Zeros and subnormals in op(X) (Case::zeros_and_subnormals): op(A) when `is_a`, else op(B).
template <class View>
void add_zeros_and_subnormals(const View& x, bool transposed, bool is_a) {
  using Scalar = typename View::non_const_value_type;
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  for (std::size_t r = 0; r < host.extent(0); ++r) {
    for (std::size_t s = 0; s < host.extent(1); ++s) {
      const std::size_t row = transposed ? s : r, col = transposed ? r : s;  // in op(X)
      const std::size_t line = is_a ? row : col, along = is_a ? col : row;
      Scalar& v = host(r, s);
      if (line % 5 == 2 || (line + 2 * along) % 3 == 0) v = 0;
      if (is_a && line % 5 == 4) v = std::ldexp(v, -1060);
      if (!is_a) v = std::ldexp(v, 1000);
    }
  }
  Kokkos::deep_copy(x, host);
}

/// Memory for a matrix of `elements` scalars between two guard regions of NaN, each longer than
/// `line` (a whole line of the matrix: an edge that reads one past op(X) reads a guard's NaN in
/// either layout, wherever the heap put the allocation) and a multiple of 16 scalars (the matrix
/// as aligned as the allocation), and `shift` scalars more before the matrix.
template <class Scalar, class Device>
class Guarded {
 public:
  Guarded(std::size_t elements, std::size_t line, std::size_t shift)
      : guard_((line / 16 + 1) * 16),
        shift_(shift),
        elements_(elements),
        memory_("guarded", 2 * guard_ + shift + elements) {
    Kokkos::deep_copy(memory_, std::numeric_limits<Scalar>::quiet_NaN());
  }
  Scalar* data() const { return memory_.data() + guard_ + shift_; }
  /// Whether every guard scalar still holds NaN.
  bool guards_intact() const {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), memory_);
    for (std::size_t e = 0; e < host.extent(0); ++e) {
      const bool guard = e < guard_ + shift_ || e >= guard_ + shift_ + elements_;
      if (guard && !std::isnan(host(e))) return false;
    }
    return true;
  }

 private:
  std::size_t guard_, shift_, elements_;
  Kokkos::View<Scalar*, Device> memory_;
};

template <class ExecSpace, class Scalar, class Layout>
Outcome<Scalar> run_kernel(const Case& c, std::vector<long double>& a, std::vector<long double>& b,
                           std::vector<long double>& c0) {
  using Operands = kernels::GemmOperands<ExecSpace, Scalar, Layout>;
  using Matrix = typename Operands::matrix;
  const auto [M, N, K] = c.shape;
  const bool ta = c.ta == Trans::T, tb = c.tb == Trans::T;
  // Views of memory of their own, one scalar past its start when shifted, between guard regions
  // of NaN (guarded()): a kernel that reads past op(A) or op(B), or writes past C, shows.
  const std::size_t shift = c.shifted ? 1 : 0;
  Guarded<Scalar, typename Operands::device_type> a_memory(std::size_t(M) * K, M + K, shift),
      b_memory(std::size_t(K) * N, K + N, shift), c_memory(std::size_t(M) * N, M + N, 0);
  Matrix A(a_memory.data(), ta ? K : M, ta ? M : K);
  Matrix B(b_memory.data(), tb ? N : K, tb ? K : N);
  Matrix C0("C0", M, N), C(c_memory.data(), M, N);
  fill_random<ExecSpace>(A, c.seed, MatrixId::A);
  fill_random<ExecSpace>(B, c.seed, MatrixId::B);
  if (c.wide) {
    scale_widely<ExecSpace>(A, c.binades);
    scale_widely<ExecSpace>(B, c.binades);
  }
  if (c.zeros_and_subnormals) {
    add_zeros_and_subnormals(A, ta, true);
    add_zeros_and_subnormals(B, tb, false);
  }
  if (c.scaling.beta == 0) {
    fill_nan<ExecSpace>(C0);
  } else {
    fill_random<ExecSpace>(C0, c.seed, MatrixId::C);
  }
  Kokkos::deep_copy(C, C0);

  Operands g;
  g.a = {A, ta};
  g.b = {B, tb};
  g.c = C0;
  g.alpha = static_cast<Scalar>(c.scaling.alpha);
  g.beta = static_cast<Scalar>(c.scaling.beta);
  const auto reference = make_reference(g);
  g.c = C;

  Outcome<Scalar> out;
  using Registry = kernels::Registry<ExecSpace, Scalar, Layout>;
  out.launch = Registry::plan(c.kernel, c.launch, {M, N, K, c.ta, c.tb});
  // Poisoned, so that a partial C left unwritten shows.
  typename Registry::Partials partials("partials", out.launch.partial_elements);
  Kokkos::deep_copy(partials, std::numeric_limits<Scalar>::quiet_NaN());
  Registry::run(c.kernel, out.launch, g, partials);
  Kokkos::fence();
  out.library_error = max_scaled_error(reference, C, C0);
  EXPECT_TRUE(c_memory.guards_intact()) << "a write past C: " << describe(c);

  // Everything to the host, as op(A), op(B) and C0 in row-major long double.
  const auto hA = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A);
  const auto hB = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B);
  const auto hC0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C0);
  const auto hC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  a.assign(std::size_t(M) * K, 0);
  b.assign(std::size_t(K) * N, 0);
  c0.assign(std::size_t(M) * N, 0);
  out.c.assign(std::size_t(M) * N, 0);
  for (int i = 0; i < M; ++i)
    for (int l = 0; l < K; ++l) a[std::size_t(i) * K + l] = ta ? hA(l, i) : hA(i, l);
  for (int l = 0; l < K; ++l)
    for (int j = 0; j < N; ++j) b[std::size_t(l) * N + j] = tb ? hB(j, l) : hB(l, j);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      c0[std::size_t(i) * N + j] = hC0(i, j);
      out.c[std::size_t(i) * N + j] = hC(i, j);
    }
  return out;
}

/// Checks C against R = alpha op(A) op(B) + beta C0 in long double, element by element, with the
/// componentwise bound |C - R| <= (K + 2) eps (|alpha| |op(A)| |op(B)| + |beta| |C0|).
template <class ExecSpace, class Scalar, class Layout>
void check(const Case& c) {
  std::vector<long double> a, b, c0;
  const Outcome<Scalar> out = run_kernel<ExecSpace, Scalar, Layout>(c, a, b, c0);
  const auto [M, N, K] = c.shape;
  const long double eps = std::numeric_limits<Scalar>::epsilon();
  const long double alpha = c.scaling.alpha, beta = c.scaling.beta;
  int reported = 0;
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      long double sum = 0, magnitude = 0;
      for (int l = 0; l < K; ++l) {
        const long double p = a[std::size_t(i) * K + l] * b[std::size_t(l) * N + j];
        sum += p;
        magnitude += std::fabs(p);
      }
      long double expected = alpha * sum, bound = std::fabs(alpha) * magnitude;
      if (beta != 0) {
        expected += beta * c0[std::size_t(i) * N + j];
        bound += std::fabs(beta) * std::fabs(c0[std::size_t(i) * N + j]);
      }
      const long double got = out.c[std::size_t(i) * N + j];
      const long double allowed = (K + 2) * eps * bound;
      const bool ok =
          std::isfinite(static_cast<double>(got)) && std::fabs(got - expected) <= allowed;
      if (!ok && reported++ < 3) {
        ADD_FAILURE() << describe(c) << ": C(" << i << "," << j << ") = " << double(got)
                      << ", expected " << double(expected) << " +- " << double(allowed);
      }
    }
  }
  // tilemm's own validation must agree that this result passes.
  EXPECT_LE(out.library_error, tolerance(c.precision, K)) << describe(c);
}

template <class ExecSpace>
void check_on(const Case& c) {
  const bool right = c.layout == Layout::Right;
  if (c.precision == Precision::Float) {
    right ? check<ExecSpace, float, Kokkos::LayoutRight>(c)
          : check<ExecSpace, float, Kokkos::LayoutLeft>(c);
  } else {
    right ? check<ExecSpace, double, Kokkos::LayoutRight>(c)
          : check<ExecSpace, double, Kokkos::LayoutLeft>(c);
  }
}

}  // namespace

void check_case(const Case& c) {
  check_on<TestSpace>(c);
}

void check_layouts_and_ops(const std::string& kernel, Shape shape, Precision precision,
                           Scaling scaling, const LaunchRequest& launch) {
  for (const Layout layout : {Layout::Right, Layout::Left}) {
    for (int op = 0; op < 4; ++op) {
      check_case({kernel, shape, layout, op & 1 ? Trans::T : Trans::N, op & 2 ? Trans::T : Trans::N,
                  precision, scaling, launch});
    }
  }
}

bool fits(const std::string& kernel, const Tiling& tile, int team) {
  try {
    kernels::Registry<TestSpace, double, Kokkos::LayoutRight>::plan(kernel, {tile, team},
                                                                    {64, 64, 64});
  } catch (const kernels::LaunchError&) {
    return false;
  }
  return true;
}

int concurrency() {
  return TestSpace().concurrency();
}

void check_layouts_and_ops(Case c) {
  for (const Layout layout : {Layout::Right, Layout::Left}) {
    for (int op = 0; op < 4; ++op) {
      c.layout = layout;
      c.ta = op & 1 ? Trans::T : Trans::N;
      c.tb = op & 2 ? Trans::T : Trans::N;
      check_case(c);
    }
  }
}

void expect_repeatable(const std::string& kernel, const Tiling& tile, int team, Shape shape,
                       int split) {
  Case c{kernel,        shape,
         Layout::Right, Trans::N,
         Trans::T,      Precision::Double,
         {1.0, 0.0},    {tile, team, split}};
  std::vector<long double> a, b, c0;
  const auto first = run_kernel<TestSpace, double, Kokkos::LayoutRight>(c, a, b, c0);
  for (int i = 0; i < 3; ++i) {
    const auto again = run_kernel<TestSpace, double, Kokkos::LayoutRight>(c, a, b, c0);
    ASSERT_EQ(first.c, again.c) << "results moved between runs: a race? " << describe(c);
  }
}

}  // namespace tilemm::test
