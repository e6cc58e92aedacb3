// Every kernel against an independent host reference in long double, on the backend under test:
// shapes that break tilings, both layouts, all four op combinations, both precisions, alpha/beta
// cases with beta = 0 on a NaN-poisoned C. Then the tiled kernels' launch parameters: tiles that do
// not divide the matrix, team sizes above 1 (barriers exercised), and bitwise-repeatable results.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>

#include "backend_dispatch.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/kernels/register_tiled.hpp"
#include "tilemm/kernels/register_tiled_launch.hpp"
#include "tilemm/kernels/registry.hpp"
#include "tilemm/kernels/tensor_tiled_launch.hpp"
#include "tilemm/matrices.hpp"
#include "tilemm/validate.hpp"

namespace tilemm::test {
namespace {

struct Shape {
  int m, n, k;
};
struct Scaling {
  double alpha, beta;
};

const std::vector<Shape> kShapes = {{1, 1, 1},    {1, 64, 1},     {64, 1, 33},
                                    {17, 31, 13}, {100, 37, 129}, {4097, 3, 65},
                                    {33, 45, 1},  {3, 5, 4099},   {64, 64, 64}};
const std::vector<Scaling> kScalings = {{1.0, 0.0}, {1.5, -0.5}, {-2.0, 1.0}, {0.5, 0.0}};

struct Case {
  std::string kernel;
  Shape shape;
  Layout layout;
  Trans ta, tb;
  Precision precision;
  Scaling scaling;
  LaunchRequest launch;
  std::uint64_t seed = 7;
  bool shifted = false;  // A and B one scalar past the start of their memory: off 16 bytes
  bool wide = false;     // A's and B's elements scaled by powers of two from 2^-30 to 2^30
};

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
  if (c.wide) os << " wide";
  return os.str();
}

/// What a kernel run produced, on the host, with the inputs it was given.
template <class Scalar>
struct Outcome {
  std::vector<Scalar> c;  // C row-major, after the run
  LaunchConfig launch;
  double library_error = 0;  // tilemm's own validation (validate.hpp) of the same result
};

/// x(i, j) *= 2^e with e from -30 to 30 varying along both i and j: data of a wide dynamic range,
/// where a product's low-order bits matter (tensor-tiled's split TF32 keeps them).
template <class ExecSpace, class View>
void scale_widely(const View& x) {
  using Scalar = typename View::non_const_value_type;
  for_each_index<ExecSpace>(
      "scale_widely", x.extent(0), x.extent(1),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        Scalar factor = 1;
        for (int e = int((7 * i + 3 * j) % 61) - 30; e != 0; e += e > 0 ? -1 : 1)
          factor *= e > 0 ? Scalar(2) : Scalar(0.5);
        x(i, j) *= factor;
      });
}

template <class ExecSpace, class Scalar, class Layout>
Outcome<Scalar> run_kernel(const Case& c, std::vector<long double>& a, std::vector<long double>& b,
                           std::vector<long double>& c0) {
  using Operands = kernels::GemmOperands<ExecSpace, Scalar, Layout>;
  using Matrix = typename Operands::matrix;
  const auto [M, N, K] = c.shape;
  const bool ta = c.ta == Trans::T, tb = c.tb == Trans::T;
  // Views of memory of their own, one scalar past its start when shifted.
  const int shift = c.shifted ? 1 : 0;
  Kokkos::View<Scalar*, typename Operands::device_type> a_memory("A", std::size_t(M) * K + shift),
      b_memory("B", std::size_t(K) * N + shift);
  Matrix A(a_memory.data() + shift, ta ? K : M, ta ? M : K);
  Matrix B(b_memory.data() + shift, tb ? N : K, tb ? K : N);
  Matrix C0("C0", M, N), C("C", M, N);
  fill_random<ExecSpace>(A, c.seed, MatrixId::A);
  fill_random<ExecSpace>(B, c.seed, MatrixId::B);
  if (c.wide) {
    scale_widely<ExecSpace>(A);
    scale_widely<ExecSpace>(B);
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
  out.launch = Registry::plan(c.kernel, c.launch, {M, N, K});
  // Poisoned, so that a partial C left unwritten shows.
  typename Registry::Partials partials("partials", out.launch.partial_elements);
  Kokkos::deep_copy(partials, std::numeric_limits<Scalar>::quiet_NaN());
  Registry::run(c.kernel, out.launch, g, partials);
  Kokkos::fence();
  out.library_error = max_scaled_error(reference, C, C0);

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

void check_case(const Case& c) {
  check_on<TestSpace>(c);
}

/// check_case in both layouts and all four op combinations.
void check_layouts_and_ops(const std::string& kernel, Shape shape, Precision precision,
                           Scaling scaling, const LaunchRequest& launch) {
  for (const Layout layout : {Layout::Right, Layout::Left}) {
    for (int op = 0; op < 4; ++op) {
      check_case({kernel, shape, layout, op & 1 ? Trans::T : Trans::N, op & 2 ? Trans::T : Trans::N,
                  precision, scaling, launch});
    }
  }
}

using KernelParam = std::tuple<std::string, int /*shape*/, Layout, int /*op*/, Precision>;

class EveryKernel : public ::testing::TestWithParam<KernelParam> {};

TEST_P(EveryKernel, MatchesLongDoubleReference) {
  const auto& [kernel, shape, layout, op, precision] = GetParam();
  for (const Scaling& scaling : kScalings) {
    Case c{kernel,
           kShapes[shape],
           layout,
           op & 1 ? Trans::T : Trans::N,
           op & 2 ? Trans::T : Trans::N,
           precision,
           scaling,
           {}};
    check_case(c);
  }
}

std::string kernel_case_name(const ::testing::TestParamInfo<KernelParam>& info) {
  const Shape& s = kShapes[std::get<1>(info.param)];
  const int op = std::get<3>(info.param);
  std::string name = std::get<0>(info.param) + "_" + std::to_string(s.m) + "x" +
                     std::to_string(s.n) + "x" + std::to_string(s.k) + "_" +
                     to_string(std::get<2>(info.param)) + "_" + (op & 1 ? "T" : "N") +
                     (op & 2 ? "T" : "N") + "_" + to_string(std::get<4>(info.param));
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Shapes, EveryKernel,
                         ::testing::Combine(::testing::ValuesIn(kernel_names()),
                                            ::testing::Range(0, static_cast<int>(kShapes.size())),
                                            ::testing::Values(Layout::Right, Layout::Left),
                                            ::testing::Range(0, 4),
                                            ::testing::Values(Precision::Float, Precision::Double)),
                         kernel_case_name);

using LaunchParam = std::tuple<std::string, Layout>;
class TeamKernelLaunch : public ::testing::TestWithParam<LaunchParam> {};

/// Whether `kernel` can launch with this tile and team size on the backend under test.
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

// Tiles that divide nothing, with team sizes 1 to 4 where the backend allows them: on OpenMP with
// two threads, team size 2 runs the barriers between two real threads.
TEST_P(TeamKernelLaunch, AnyTileAndTeamSize) {
  const auto& [kernel, layout] = GetParam();
  std::vector<std::string> tiles =
      kernel == "tiled" ? std::vector<std::string>{"8", "16x8x4", "5x7x3", "32x16x8"}
      : kernel == "tensor-tiled"
          ? std::vector<std::string>{"32x32x16/16x16",    "64x64x16/32x32",   "128x128x8/64x32",
                                     "128x64x16/64x32",  // one buffer on a GPU
                                     "128x64x8/64x32/s2", "64x128x8/32x64/s3"}  // copy stages
          : std::vector<std::string>{
                "8x16x32/8x16", "16x16x8/4x4", "32x16x4/8x8", "24x40x5/4x4",
                "16x24x6/4x8",  "4x4x2/4x4",   "4x8x2/4x4"};  // the last two: pipelined
  if (kernel == "register-tiled" && kernels::runs_on_cpu<TestSpace>()) {
    // the CPU's own (12x32 and 12x16 with AVX-512, 6x16 and 6x8 with AVX2)
    tiles.insert(tiles.end(), {"24x64x20/" + std::to_string(kernels::kCpuTileRows) + "x" +
                                   std::to_string(kernels::kCpuTileCols<float>),
                               "36x32x7/" + std::to_string(kernels::kCpuTileRows) + "x" +
                                   std::to_string(kernels::kCpuTileCols<double>)});
  }
  // On a GPU tensor-tiled runs a thread a lane: its teams are 32 threads a warp, no other size.
  const bool warps = kernel == "tensor-tiled" && !kernels::runs_on_cpu<TestSpace>();
  for (const std::string& tile_text : tiles) {
    const Tiling tile = *Tiling::parse(tile_text);
    const int lanes = 32 * (tile.bm / tile.tm) * (tile.bn / tile.tn);
    EXPECT_EQ(fits(kernel, tile, 1), !warps) << kernel << " tile " << tile_text << ", 1 thread";
    const bool several = tile.bm * tile.bn > tile.tm * tile.tn;  // more than one thread tile
    if (several && concurrency() >= 2 && !warps) {
      EXPECT_TRUE(fits(kernel, tile, 2)) << kernel << " tile " << tile_text << ": no team of 2";
    }
    const std::vector<int> teams = warps ? std::vector<int>{lanes} : std::vector<int>{1, 2, 3, 4};
    ASSERT_TRUE(!warps || fits(kernel, tile, lanes)) << kernel << " tile " << tile_text;
    for (const int team : teams) {
      if (!fits(kernel, tile, team))
        continue;  // more threads than the backend has, or not a divisor
      for (const Shape shape : {Shape{17, 31, 13}, Shape{100, 37, 129}, Shape{4097, 3, 65}}) {
        for (int op = 0; op < 4; ++op) {
          Case c{kernel,
                 shape,
                 layout,
                 op & 1 ? Trans::T : Trans::N,
                 op & 2 ? Trans::T : Trans::N,
                 Precision::Double,
                 {1.5, -0.5},
                 {tile, team}};
          check_case(c);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TeamKernels, TeamKernelLaunch,
                         ::testing::Combine(::testing::Values("tiled", "register-tiled",
                                                              "tensor-tiled"),
                                            ::testing::Values(Layout::Right, Layout::Left)));

// The tiles a GPU build compiles with fixed extents (register_tiled_launch.hpp, with_fixed_tile;
// LayoutRight's op NN runs a kernel compiled for it, the rest the one that reads the ops at run
// time), with the backend's team size: on a GPU the pipelined schedule with 16-byte loads where a
// panel lies inside the matrix and its leading dimension is a multiple of 4 (260 x 132 x 68:
// interior, edge and partial-K panels), scalar loads otherwise (257 x 130 x 33); K shorter than
// one K block (67 x 140 x 5) and K whole K blocks (130 x 129 x 16).
TEST(RegisterTiledFixedTiles, MatchLongDoubleReference) {
  // 128x128x16/8x8 is float's alone: two double buffers would pass a CUDA team's 48 KB of scratch.
  const std::vector<std::pair<const char*, std::vector<Precision>>> tiles = {
      {"128x128x16/8x8", {Precision::Float}},
      {"128x128x8/8x8", {Precision::Float, Precision::Double}},
      {"128x64x8/8x8", {Precision::Float, Precision::Double}},
      {"64x128x8/8x8", {Precision::Float, Precision::Double}},
      {"64x64x8/8x8", {Precision::Float, Precision::Double}},
      {"64x128x8/4x8", {Precision::Float, Precision::Double}},
      {"64x64x16/4x4", {Precision::Float, Precision::Double}},
      {"32x32x8/4x4", {Precision::Float, Precision::Double}}};
  for (const auto& [tile, precisions] : tiles) {
    for (const Shape shape :
         {Shape{260, 132, 68}, Shape{257, 130, 33}, Shape{67, 140, 5}, Shape{130, 129, 16}}) {
      for (const Layout layout : {Layout::Right, Layout::Left}) {
        for (int op = 0; op < 4; ++op) {
          for (const Precision precision : precisions) {
            check_case({"register-tiled",
                        shape,
                        layout,
                        op & 1 ? Trans::T : Trans::N,
                        op & 2 ? Trans::T : Trans::N,
                        precision,
                        {1.5, -0.5},
                        {Tiling::parse(tile), 0}});
          }
        }
      }
    }
  }
}

// Compiled-in double tiles read their shares 16 bytes a load (pairs) where every extent is even
// and A and B lie on 16 bytes, a scalar a load otherwise (register_tiled_launch.hpp, pairs_fit):
// pairs whole K and split (edges and a short last range among them), and the scalar kernels for
// operands off 16 bytes. (CPUs compile no fixed tiles: there the same cases check the others.)
TEST(RegisterTiledFixedTiles, PairsAndScalarsMatchLongDoubleReference) {
  for (const char* tile : {"128x128x8/8x8", "64x128x8/8x8"}) {
    // K shorter than a block (its one block through load_first) and two whole blocks, in pairs.
    for (const Shape shape : {Shape{260, 140, 6}, Shape{260, 140, 16}}) {
      check_case({"register-tiled",
                  shape,
                  Layout::Right,
                  Trans::T,
                  Trans::N,
                  Precision::Double,
                  {1.5, -0.5},
                  {Tiling::parse(tile), 0}});
    }
    for (const bool shifted : {false, true}) {
      for (const Layout layout : {Layout::Right, Layout::Left}) {
        for (int op = 0; op < 4; ++op) {
          for (const int split : {1, 3}) {
            Case c{"register-tiled",
                   {260, 140, 300},
                   layout,
                   op & 1 ? Trans::T : Trans::N,
                   op & 2 ? Trans::T : Trans::N,
                   Precision::Double,
                   {1.5, -0.5},
                   {Tiling::parse(tile), 0, split, split > 1 ? 1 : 0}};
            c.shifted = shifted;
            check_case(c);
          }
        }
      }
    }
  }
}

// Pairs are chosen only where every extent is even and A and B lie on 16 bytes (each condition
// alone: an odd K or N with even leading dimensions, through op T), and a GPU's launch then runs
// the kernel compiled for them.
TEST(RegisterTiledFixedTiles, PairsOnlyForEvenExtentsOn16Bytes) {
  using Launch = kernels::RegisterTiled<TestSpace, double, Kokkos::LayoutRight>;
  using Operands = Launch::Operands;
  using Matrix = Operands::const_matrix;
  Kokkos::View<double*, Operands::device_type> memory("memory", 2 * 64 * 64 + 2);
  // op(A) m x k and op(B) k x n, transposed as asked, from `shift` scalars past the memory's start.
  const auto operands = [&](int m, int n, int k, bool ta, bool tb, int shift) {
    Operands g;
    g.a = {ta ? Matrix(memory.data() + shift, k, m) : Matrix(memory.data() + shift, m, k), ta};
    double* b = memory.data() + 64 * 64 + shift;
    g.b = {tb ? Matrix(b, n, k) : Matrix(b, k, n), tb};
    g.c = Operands::matrix("C", m, n);
    return g;
  };
  EXPECT_TRUE(Launch::pairs_fit(operands(64, 62, 60, false, false, 0)));
  EXPECT_TRUE(Launch::pairs_fit(operands(64, 62, 60, true, true, 0)));
  EXPECT_FALSE(Launch::pairs_fit(operands(63, 62, 60, false, false, 0))) << "odd M";
  EXPECT_FALSE(Launch::pairs_fit(operands(64, 61, 60, false, true, 0))) << "odd N";
  EXPECT_FALSE(Launch::pairs_fit(operands(64, 62, 59, true, false, 0))) << "odd K";
  EXPECT_FALSE(Launch::pairs_fit(operands(64, 62, 60, false, false, 1))) << "off 16 bytes";
  // The kernel the launch takes for a compiled-in tile: two scalars a load with pairs.
  const Tiling tile{128, 128, 8, 8, 8};
  for (const bool pairs : {false, true}) {
    int width = 0;
    const bool compiled = Launch::with_fixed_tile(tile, true, true, pairs, 64, [&](auto kernel) {
      width = decltype(kernel)::Shares::kWidth;
    });
    EXPECT_EQ(compiled, !kernels::runs_on_cpu<TestSpace>());
    if (compiled) EXPECT_EQ(width, pairs ? 2 : 1) << "pairs " << pairs;
  }
}

// A compiled-in double tile addresses its shares of a panel by 32-bit offsets, so it runs only
// where a panel's lines times the leading dimension fit an int; past that the launch takes the
// kernel with the tile read at run time (register_tiled_shares.hpp, offsets_fit). Float's tiles
// have no such offsets.
TEST(RegisterTiledFixedTiles, ThirtyTwoBitOffsetsOnlyWhereTheyFit) {
  using kernels::Schedule;
  using Double128 = kernels::RegisterTiledGemm<
      TestSpace, double, Kokkos::LayoutRight,
      kernels::RegisterTiledVariant<8, 8, Schedule::pipelined, kernels::TileShape<128, 128, 8>>>;
  using Float128 = kernels::RegisterTiledGemm<
      TestSpace, float, Kokkos::LayoutRight,
      kernels::RegisterTiledVariant<8, 8, Schedule::pipelined, kernels::TileShape<128, 128, 16>>>;
  const int largest = std::numeric_limits<int>::max() / 128;  // 16777215
  EXPECT_TRUE(Double128::Shares::offsets_fit(largest));
  EXPECT_FALSE(Double128::Shares::offsets_fit(largest + 1));
  EXPECT_TRUE(Float128::Shares::offsets_fit(std::numeric_limits<int>::max()));
}

// The CPU's default tiles (a team of one thread, rows of vector registers where the compiler has
// vector types), in both precisions: several tiles, K blocks and edges in every direction, op(A)
// read from either order of its panel (op N and T).
TEST(RegisterTiledCpuTiles, MatchLongDoubleReference) {
  if constexpr (!kernels::runs_on_cpu<TestSpace>()) {
    GTEST_SKIP() << "CPU tiles";
  } else {
    const std::string rows = std::to_string(kernels::kCpuTileRows),
                      cols_float = std::to_string(kernels::kCpuTileCols<float>),
                      cols_double = std::to_string(kernels::kCpuTileCols<double>);
    for (const auto& [tile, precision] :
         {std::make_pair("48x64x32/" + rows + "x" + cols_float, Precision::Float),
          std::make_pair("48x64x16/" + rows + "x" + cols_double, Precision::Double)}) {
      check_layouts_and_ops("register-tiled", {101, 150, 77}, precision, {1.5, -0.5},
                            {Tiling::parse(tile), 1});
    }
  }
}

// With two or more threads, OpenMP must give the team kernels teams of two threads: otherwise the
// team tests above would never have run a barrier between threads.
TEST(TeamKernelLimits, TeamsAboveOneWhenThreadsAllow) {
  for (const auto& [kernel, tile] : {std::make_pair("tiled", Tiling{16, 16, 16}),
                                     std::make_pair("register-tiled", Tiling{16, 16, 8, 4, 4})}) {
    EXPECT_EQ(fits(kernel, tile, 2), concurrency() >= 2)
        << kernel << " team of 2 at concurrency " << concurrency();
  }
}

TEST(TeamKernelLimits, TileTooLargeForScratchIsRefused) {
  for (const auto& [kernel, tile] :
       {std::make_pair("tiled", Tiling{512, 512, 512}),
        std::make_pair("register-tiled", Tiling{2048, 2048, 512, 8, 8})}) {
    using Registry = kernels::Registry<TestSpace, double, Kokkos::LayoutRight>;
    try {
      Registry::plan(kernel, {tile, 1}, {4096, 4096, 4096});
      ADD_FAILURE() << kernel << ": tile " << tile.to_string() << " (MiBs of scratch) was accepted";
    } catch (const kernels::LaunchError& e) {
      EXPECT_EQ(e.limit(), kernels::LaunchLimit::Tile);
      EXPECT_NE(std::string(e.what()).find("team scratch"), std::string::npos) << e.what();
    }
  }
}

// Tiles the register-tiled kernel cannot run are refused by name, before anything runs.
TEST(TeamKernelLimits, RegisterTiledRefusesTilesItCannotRun) {
  for (const std::string tile : {"32x32x8/8x4", "64x64x8"}) {
    EXPECT_FALSE(fits("register-tiled", *Tiling::parse(tile), 1)) << tile;
  }
  EXPECT_FALSE(fits("register-tiled", Tiling{16, 16, 8, 4, 4}, 3)) << "3 does not divide 16";
  EXPECT_FALSE(fits("tiled", Tiling{16, 16, 8, 4, 4}, 1)) << "tiled takes no thread tile";
  // The CPU's own thread tiles are compiled for CPUs alone.
  EXPECT_EQ(fits("register-tiled",
                 Tiling{24, 64, 8, kernels::kCpuTileRows, kernels::kCpuTileCols<float>}, 1),
            kernels::runs_on_cpu<TestSpace>());
}

// tensor-tiled runs the tiles of its table alone, K split as asked, and names its instruction: a
// GPU's mma, a CPU's plain multiply-adds. On a GPU a thread a lane, so a team of 32 a warp.
TEST(TeamKernelLimits, TensorTiledRunsItsTable) {
  using Registry = kernels::Registry<TestSpace, float, Kokkos::LayoutRight>;
  for (const std::string tile : {"32x32x8/16x16", "64x64x16/16x16", "64x64x8"}) {
    EXPECT_FALSE(fits("tensor-tiled", *Tiling::parse(tile), 1)) << tile;
  }
  const LaunchConfig split = Registry::plan("tensor-tiled", {std::nullopt, 0, 2}, {64, 64, 4096});
  EXPECT_EQ(split.split_k, 2);
  EXPECT_EQ(split.partial_elements,
            2 * std::size_t(split.split_tiles) * split.tile.bm * split.tile.bn);
  const LaunchConfig cfg = Registry::plan("tensor-tiled", {}, {64, 64, 64});
  const bool cpu = kernels::runs_on_cpu<TestSpace>();
  EXPECT_EQ(cfg.instruction, cpu ? "fma" : "mma.m16n8k8.tf32x3");
  EXPECT_EQ(cfg.team_size,
            cpu ? 1 : 32 * (cfg.tile.bm / cfg.tile.tm) * (cfg.tile.bn / cfg.tile.tn));
  EXPECT_EQ(fits("tensor-tiled", Tiling{32, 32, 16, 16, 16}, 96), false) << "4 warps are 128";
  // Float's split TF32 only from K = 10 (kSplitTf32MinK), plain FP32 products below.
  EXPECT_EQ(Registry::plan("tensor-tiled", {}, {64, 64, 9}).instruction, "fma");
  EXPECT_EQ(Registry::plan("tensor-tiled", {}, {64, 64, 10}).instruction,
            cpu ? "fma" : "mma.m16n8k8.tf32x3");
  using DoubleRegistry = kernels::Registry<TestSpace, double, Kokkos::LayoutRight>;
  EXPECT_EQ(DoubleRegistry::plan("tensor-tiled", {}, {64, 64, 1}).instruction == "fma", cpu)
      << "double's mma products are exact at any K";
}

// Float at the edges of split TF32's threshold (K = 9: plain products on a GPU, K = 10: split
// TF32, perf/README.md), on data of a wide range, in every layout and op, beta 0 and not.
TEST(TensorTiledFloat, ThresholdEdgesMatchLongDoubleReference) {
  for (const int k : {1, 9, 10, 11}) {
    for (const Scaling scaling : {Scaling{1.0, 0.0}, Scaling{1.5, -0.5}}) {
      for (const Layout layout : {Layout::Right, Layout::Left}) {
        for (int op = 0; op < 4; ++op) {
          Case c{"tensor-tiled",
                 {45, 37, k},
                 layout,
                 op & 1 ? Trans::T : Trans::N,
                 op & 2 ? Trans::T : Trans::N,
                 Precision::Float,
                 scaling,
                 {}};
          c.wide = true;
          check_case(c);
        }
      }
    }
  }
}

/// Case c in both layouts and every op.
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

// Float from the tensor cores' TF32 still meets FP32's bound (split TF32), on data of a wide
// dynamic range too, in every layout and op, in the default tile and float's largest.
TEST(TensorTiledFloat, WideRangeMatchesLongDoubleReference) {
  for (const auto& tile : {std::optional<Tiling>{}, Tiling::parse("128x128x16/64x32")}) {
    Case c{"tensor-tiled", {150, 137, 300},  Layout::Right, Trans::N,
           Trans::N,       Precision::Float, {1.5, -0.5},   {tile}};
    c.wide = true;
    check_layouts_and_ops(c);
  }
}

// Tiles with copy stages: K divides into their blocks and the leading dimensions into runs of 4,
// so that on a GPU the inner tiles copy their panels asynchronously (NN in LayoutRight, TT in
// LayoutLeft) while the edge tiles and the other ops stage them, in every tile of the table with
// stages that fits the precision, float on data of a wide range.
TEST(TensorTiledCopies, MatchLongDoubleReference) {
  const std::vector<std::pair<const char*, bool>> tiles = {
      {"128x64x8/64x32/s2", true},   {"128x64x8/64x32/s3", true},   {"128x64x8/64x32/s4", false},
      {"64x128x8/32x64/s3", true},   {"128x64x16/64x32/s2", false}, {"128x64x16/64x32/s3", false},
      {"128x128x16/64x32/s2", false}};
  for (const auto& [tile, in_double] : tiles) {
    for (const Precision precision : {Precision::Float, Precision::Double}) {
      if (precision == Precision::Double && !in_double) continue;
      Case c{"tensor-tiled", {200, 196, 96}, Layout::Right, Trans::N,
             Trans::N,       precision,      {1.5, -0.5},   {Tiling::parse(tile)}};
      c.wide = precision == Precision::Float;
      check_layouts_and_ops(c);
    }
  }
}

// tensor-tiled splits K as a spec asks, in ranges of whole K blocks: K = 300 in blocks of 16 (19
// blocks: 2 ranges of 10 + 9, 3 of 7 + 7 + 5), K shorter than BK x ranges (K = 20 in 3 ranges of
// 16-deep blocks: 2 ranges), tiles whose copies engage within each range (K = 96: 12 blocks of 8,
// 6 of 16), float's plain products at K = 9 (2 ranges, 8 + 1), and the last tiles alone; every
// layout and op, beta 0 on a poisoned C and not, float on data of a wide range.
TEST(TensorTiledSplitK, MatchLongDoubleReference) {
  const auto check_split = [](const char* tile, Shape shape, Precision precision, int split,
                              int split_tiles = 0) {
    for (const Scaling scaling : {Scaling{1.0, 0.0}, Scaling{1.5, -0.5}}) {
      Case c{
          "tensor-tiled", shape,     Layout::Right, Trans::N,
          Trans::N,       precision, scaling,       {Tiling::parse(tile), 0, split, split_tiles}};
      c.wide = precision == Precision::Float;
      check_layouts_and_ops(c);
    }
  };
  for (const Precision precision : {Precision::Float, Precision::Double}) {
    for (const int split : {2, 3}) check_split("64x64x16/32x32", {67, 140, 300}, precision, split);
    check_split("32x32x16/16x16", {45, 37, 20}, precision, 3);
    check_split("128x64x8/64x32/s2", {200, 196, 96}, precision, 3);
    check_split("32x32x16/16x16", {67, 140, 300}, precision, 3, 5);
  }
  check_split("128x64x16/64x32/s3", {200, 196, 96}, Precision::Float, 4);  // the wide schedule
  check_split("128x64x8/64x32", {45, 37, 9}, Precision::Float, 2);
}

// The split a plan reports is the one that runs, whole K blocks a range and none empty; float's
// plain products at K < 10 split too; the kernel's default splits nothing on a CPU.
TEST(TensorTiledSplitK, PlanReportsTheRangesRun) {
  using Registry = kernels::Registry<TestSpace, float, Kokkos::LayoutRight>;
  const Tiling tile{32, 32, 16, 16, 16};
  // {K, requested, ranges}: 20 is 2 blocks of 16; 300 is 19, in 4 ranges 5 + 5 + 5 + 4.
  for (const auto& [k, requested, ranges] :
       {std::make_tuple(20, 3, 2), std::make_tuple(300, 4, 4), std::make_tuple(16, 4, 1)}) {
    const LaunchConfig cfg = Registry::plan("tensor-tiled", {tile, 0, requested}, {40, 30, k});
    EXPECT_EQ(cfg.split_k, ranges) << "K = " << k << " in " << requested;
    EXPECT_EQ(cfg.split_tiles, ranges > 1 ? 2 : 0);
    EXPECT_EQ(cfg.partial_elements, ranges > 1 ? std::size_t(ranges) * 2 * 32 * 32 : 0u);
  }
  EXPECT_EQ(Registry::plan("tensor-tiled", {tile, 0, 4, 1}, {100, 70, 80}).split_tiles, 1);
  const LaunchConfig plain =
      Registry::plan("tensor-tiled", {Tiling{128, 64, 8, 64, 32}, 0, 2}, {45, 37, 9});
  EXPECT_EQ(plain.split_k, 2);
  EXPECT_EQ(plain.instruction, "fma");
  if (kernels::runs_on_cpu<TestSpace>()) {
    EXPECT_EQ(Registry::plan("tensor-tiled", {}, {64, 4096, 4096}).split_k, 1);
  }
}

// A GPU's default splits K where C has too few tiles for its multiprocessors and K is long (the
// skinny shapes of inputs/small-skinny.yaml), in a tile of C's shape, and leaves square products
// from 1024 on and a short K unsplit: planned here for 132 multiprocessors (an H100's or H200's).
TEST(TensorTiledSplitK, GpuDefaultSplitsSkinnyShapesAlone) {
  constexpr std::int64_t kProcessors = 132;
  const auto expect = [](auto launch, const Extents& e, int ranges, int bm, int bn) {
    using Launch = decltype(launch);
    const Tiling t = Launch::gpu_tile(e, kProcessors);
    const kernels::KSplit split = Launch::default_split(t, e, kProcessors);
    const std::string shape = std::to_string(e.m) + "x" + std::to_string(e.n) + "x" +
                              std::to_string(e.k) + " in " + t.to_string();
    EXPECT_EQ(split.ranges, ranges) << shape;
    if (ranges > 1) {
      EXPECT_EQ(split.tiles, tiles_of(t, e.m, e.n)) << shape << ": every tile";
      EXPECT_EQ(std::make_pair(t.bm, t.bn), std::make_pair(bm, bn)) << shape;
    }
  };
  const auto both = [&](auto launch) {
    expect(launch, {64, 4096, 4096}, 8, 64, 128);
    expect(launch, {4096, 64, 4096}, 8, 128, 64);
    expect(launch, {64, 64, 65536}, 128, 64, 64);
    expect(launch, {4096, 64, 4096, Trans::T, Trans::T}, 8, 128, 64);
    for (const std::int64_t n : {1024, 4096}) expect(launch, {n, n, n}, 1, 0, 0);
    expect(launch, {512, 512, 512}, 1, 0, 0);   // K too short
    expect(launch, {4096, 4096, 64}, 1, 0, 0);  // the same
    expect(launch, {64, 4096, 1000}, 1, 0, 0);  // one range of kMinSplitDepth
  };
  both(kernels::TensorTiled<TestSpace, float, Kokkos::LayoutRight>{});
  both(kernels::TensorTiled<TestSpace, double, Kokkos::LayoutRight>{});
  both(kernels::TensorTiled<TestSpace, double, Kokkos::LayoutLeft>{});
}

// A split K: the tiles a GPU compiles in and tiles read at run time (pipelined and shared
// schedules), split into ranges of whole K blocks that leave the last one short (K = 300 in 8-deep
// blocks: 38 blocks, in 3 ranges 13 + 13 + 12, in 7 ranges 6 x 6 + 2), in more ranges than K has
// blocks (4099 deep in 4 ranges of 32x32x8's 513 blocks; K = 5, one block: no split), with beta
// 0 on a poisoned C and beta != 0.
TEST(RegisterTiledSplitK, MatchLongDoubleReference) {
  const int team = concurrency() >= 2 ? 2 : 1;
  const std::vector<std::pair<const char*, int>> tiles = {{"64x128x8/8x8", 0},
                                                          {"128x64x8/8x8", 0},
                                                          {"32x32x8/4x4", 0},
                                                          {"16x24x6/4x8", 0},
                                                          {"16x24x6/4x8", team}};
  for (const auto& [tile_text, team_size] : tiles) {
    const Tiling tile = *Tiling::parse(tile_text);
    for (const int split : {3, 7}) {
      for (const Scaling scaling : {Scaling{1.0, 0.0}, Scaling{1.5, -0.5}}) {
        for (const Precision precision : {Precision::Double, Precision::Float}) {
          check_layouts_and_ops("register-tiled", {67, 140, 300}, precision, scaling,
                                {tile, team_size, split});
        }
      }
    }
  }
  for (const Shape shape : {Shape{3, 5, 4099}, Shape{33, 45, 5}}) {
    check_case({"register-tiled",
                shape,
                Layout::Right,
                Trans::N,
                Trans::N,
                Precision::Double,
                {1.5, -0.5},
                {Tiling{32, 32, 8, 4, 4}, 0, 4}});
  }
}

// A split of the last tiles alone (a last wave's): the tiles before them run whole K in a launch
// of their own, the last 1 or 5 of 67 x 140's tiles (edges among them) in ranges, then their sum;
// more tiles than C has split them all.
TEST(RegisterTiledSplitK, LastTilesMatchLongDoubleReference) {
  const int team = concurrency() >= 2 ? 2 : 1;
  const std::vector<std::pair<const char*, int>> tiles = {
      {"64x128x8/8x8", 0}, {"32x32x8/4x4", 0}, {"16x24x6/4x8", team}};
  for (const auto& [tile_text, team_size] : tiles) {
    const Tiling tile = *Tiling::parse(tile_text);
    for (const int split_tiles : {1, 5, 1000}) {
      for (const Scaling scaling : {Scaling{1.0, 0.0}, Scaling{1.5, -0.5}}) {
        check_layouts_and_ops("register-tiled", {67, 140, 300}, Precision::Double, scaling,
                              {tile, team_size, 3, split_tiles});
      }
    }
  }
}

// The split a launch reports is the one it runs: ranges of whole K blocks, none empty.
TEST(RegisterTiledSplitK, SplitCountIsTheRangesRun) {
  using Registry = kernels::Registry<TestSpace, double, Kokkos::LayoutRight>;
  const Tiling tile{32, 32, 8, 4, 4};
  // {K, requested, ranges}: 10 blocks of 8 in 4 ranges are 3 + 3 + 3 + 1; in 6 ranges, 5 of 2.
  for (const auto& [k, requested, ranges] :
       {std::make_tuple(80, 4, 4), std::make_tuple(80, 6, 5), std::make_tuple(80, 100, 10),
        std::make_tuple(5, 4, 1), std::make_tuple(80, 1, 1)}) {
    const LaunchConfig cfg = Registry::plan("register-tiled", {tile, 0, requested}, {40, 30, k});
    EXPECT_EQ(cfg.split_k, ranges) << "K = " << k << " in " << requested;
    // A partial tile a tile of C (here 2 of 32 x 32) and range.
    EXPECT_EQ(cfg.split_tiles, ranges > 1 ? 2 : 0);
    EXPECT_EQ(cfg.partial_elements, ranges > 1 ? std::size_t(ranges) * 2 * 32 * 32 : 0u);
  }
  // The last tiles alone, or all of them where the request names more.
  const Extents e{100, 70, 80};  // 4 x 3 tiles
  EXPECT_EQ(Registry::plan("register-tiled", {tile, 0, 4, 5}, e).split_tiles, 5);
  EXPECT_EQ(Registry::plan("register-tiled", {tile, 0, 4, 5}, e).partial_elements, 4u * 5 * 1024);
  EXPECT_EQ(Registry::plan("register-tiled", {tile, 0, 4, 50}, e).split_tiles, 12);
  EXPECT_EQ(Registry::plan("register-tiled", {tile, 0, 1, 5}, e).split_tiles, 0) << "no split";
}

// By default K is split only where K is long and C's tiles leave processors without a team, at
// once or in their last wave: with one processor (Serial) a single tile is enough.
TEST(RegisterTiledSplitK, DefaultSplitWhereProcessorsWouldWait) {
  using Registry = kernels::Registry<TestSpace, double, Kokkos::LayoutRight>;
  EXPECT_EQ(Registry::plan("register-tiled", {}, {8, 8, 4096}).split_k > 1, concurrency() >= 2);
  EXPECT_EQ(Registry::plan("register-tiled", {}, {8, 8, 256}).split_k, 1) << "K too short";
  // Tiles that fill every processor are not all split; a last wave's may be (on a GPU of 132
  // multiprocessors, 8192^3 in double: 31 waves of 128x128 tiles, then the last 4 tiles split).
  using Launch = kernels::RegisterTiled<TestSpace, double, Kokkos::LayoutRight>;
  for (const std::int64_t n : {4096, 8192}) {
    const LaunchConfig cfg = Registry::plan("register-tiled", {}, {n, n, n});
    const std::int64_t tiles = Launch::tiles_of(cfg.tile, {n, n, n});
    EXPECT_LT(cfg.split_tiles, tiles) << n;
    EXPECT_EQ(cfg.split_tiles > 0, cfg.split_k > 1) << n;
    if (cfg.split_k > 1) EXPECT_LT(cfg.split_tiles, Launch::team_slots(cfg.tile)) << n;
  }
  // Tiles in whole waves stay whole; of one tile more than whole waves, that tile alone is split,
  // where a wave has room for more than one team.
  const Tiling tile{128, 128, 8, 8, 8};
  const int slots = static_cast<int>(Launch::team_slots(tile));
  for (const int waves : {1, 3}) {
    EXPECT_EQ(Launch::default_split(tile, {128 * waves * slots, 128, 16384}).ranges, 1) << waves;
    const auto split = Launch::default_split(tile, {128 * (waves * slots + 1), 128, 16384});
    EXPECT_EQ(split.ranges > 1, slots > 1) << waves << " waves and a tile on " << slots;
    if (slots > 1) EXPECT_EQ(split.tiles, 1) << waves << " waves and a tile on " << slots;
  }
  // A tile the spec names runs unsplit unless a split is asked for too.
  EXPECT_EQ(Registry::plan("register-tiled", {Tiling{32, 32, 8, 4, 4}}, {8, 8, 4096}).split_k, 1);
  // A split that would make more teams than a launch takes is refused by its key.
  try {
    Registry::plan("register-tiled", {Tiling{4, 4, 8, 4, 4}, 0, 4096}, {1 << 16, 1 << 16, 1 << 20});
    ADD_FAILURE() << "2^32 tiles in 4096 ranges were accepted";
  } catch (const kernels::LaunchError& e) {
    EXPECT_EQ(e.limit(), kernels::LaunchLimit::SplitK) << e.what();
  }
  // ... also where the count of teams would pass 2^63 (a sanitized build reports an overflow).
  constexpr int kMax = std::numeric_limits<int>::max();
  try {
    Registry::plan("register-tiled", {Tiling{4, 4, 8, 4, 4}, 0, 4096}, {kMax, kMax, 1 << 20});
    ADD_FAILURE() << "2.9e17 tiles in 4096 ranges were accepted";
  } catch (const kernels::LaunchError& e) {
    EXPECT_EQ(e.limit(), kernels::LaunchLimit::SplitK) << e.what();
  }
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

// The kernels index in int: an extent whose last tile would reach past 2^31 - 1, or more teams
// than a launch takes, is refused by the limit it passes before anything runs.
TEST(TeamKernelLimits, RefusesIndicesPastInt) {
  using Registry = kernels::Registry<TestSpace, float, Kokkos::LayoutRight>;
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  using kernels::LaunchLimit;
  const auto limit_of = [](const std::string& kernel, const LaunchRequest& request,
                           const Extents& e) -> std::optional<LaunchLimit> {
    try {
      Registry::plan(kernel, request, e);
    } catch (const kernels::LaunchError& error) {
      // The message names the extent refused, or C's extents for its teams.
      const std::string named = error.limit() == LaunchLimit::N   ? std::to_string(e.n)
                                : error.limit() == LaunchLimit::K ? std::to_string(e.k)
                                                                  : std::to_string(e.m);
      EXPECT_NE(std::string(error.what()).find(" " + named + " "), std::string::npos)
          << error.what();
      return error.limit();
    }
    return std::nullopt;
  };
  const Tiling tiled{24, 24, 24}, registered{64, 64, 8, 8, 8};
  EXPECT_EQ(limit_of("tiled", {tiled}, {kMax, 1, 1}), LaunchLimit::M);
  EXPECT_EQ(limit_of("tiled", {tiled}, {kMax - 24, 1, 1}), std::nullopt);
  EXPECT_EQ(limit_of("register-tiled", {registered}, {1, kMax - 63, 1}), LaunchLimit::N);
  EXPECT_EQ(limit_of("register-tiled", {registered}, {1, 1, kMax - 7}), LaunchLimit::K);
  EXPECT_EQ(limit_of("register-tiled", {registered, 0, 1}, {1, 1, kMax - 8}), std::nullopt);
  EXPECT_EQ(limit_of("register-tiled", {}, {kMax, 1, 1}), LaunchLimit::M);  // the default tile too
  EXPECT_EQ(limit_of("tiled", {Tiling{1, 1, 1}}, {46341, 46341, 1}),
            LaunchLimit::Tile);  // 2^31 + 4680 teams
  // 2^30 tiles of C: a launch takes them whole, not in two ranges of K.
  EXPECT_EQ(limit_of("register-tiled", {registered, 0, 1}, {1 << 21, 1 << 21, 16}), std::nullopt);
  EXPECT_EQ(limit_of("register-tiled", {registered, 0, 2}, {1 << 21, 1 << 21, 16}),
            LaunchLimit::SplitK);
  EXPECT_EQ(limit_of("tensor-tiled", {Tiling{32, 32, 16, 16, 16}, 0, 2}, {1 << 21, 1 << 21, 32}),
            LaunchLimit::SplitK);
  EXPECT_EQ(limit_of("naive", {}, {kMax, kMax, kMax}),
            std::nullopt);  // Kokkos' own launch, in int64
}

// A race shows as results that differ between runs of the same inputs.
template <class ExecSpace>
void repeatable_on(const std::string& kernel, const Tiling& tile, int team,
                   Shape shape = {100, 37, 129}, int split = 0) {
  Case c{kernel,        shape,
         Layout::Right, Trans::N,
         Trans::T,      Precision::Double,
         {1.0, 0.0},    {tile, team, split}};
  std::vector<long double> a, b, c0;
  const auto first = run_kernel<ExecSpace, double, Kokkos::LayoutRight>(c, a, b, c0);
  for (int i = 0; i < 3; ++i) {
    const auto again = run_kernel<ExecSpace, double, Kokkos::LayoutRight>(c, a, b, c0);
    ASSERT_EQ(first.c, again.c) << "results moved between runs: a race? " << describe(c);
  }
}

TEST(TeamKernelLimits, BitwiseRepeatable) {
  const int team = concurrency() >= 2 ? 2 : 1;
  for (const auto& [kernel, tile] : {std::make_pair("tiled", Tiling{16, 16, 16}),
                                     std::make_pair("register-tiled", Tiling{16, 16, 8, 4, 4}),
                                     std::make_pair("register-tiled", Tiling{4, 8, 2, 4, 4})}) {
    ASSERT_TRUE(fits(kernel, tile, team)) << kernel << " with team size " << team;
    repeatable_on<TestSpace>(kernel, tile, team);
  }
  repeatable_on<TestSpace>("tensor-tiled", Tiling{64, 64, 16, 32, 32}, 0);
  repeatable_on<TestSpace>("tensor-tiled", Tiling{64, 64, 16, 32, 32}, 0, {260, 132, 680}, 5);
  repeatable_on<TestSpace>("register-tiled", Tiling{32, 32, 8, 4, 4}, 0);  // the backend's team
  repeatable_on<TestSpace>("register-tiled", Tiling{64, 64, 16, 4, 4}, 0, {260, 132, 68});
  repeatable_on<TestSpace>("register-tiled", Tiling{64, 64, 16, 4, 4}, 0, {260, 132, 680}, 5);
}

}  // namespace
}  // namespace tilemm::test
