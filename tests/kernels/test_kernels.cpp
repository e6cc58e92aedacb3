// Every kernel against an independent host reference in long double, on the backend under test:
// shapes that break tilings, both layouts, all four op combinations, both precisions, alpha/beta
// cases with beta = 0 on a NaN-poisoned C. Then the tiled kernels' launch parameters: tiles that do
// not divide the matrix, team sizes above 1 (barriers exercised), limits, and bitwise-repeatable
// results. Each kernel's own cases: test_register_tiled.cpp, test_tensor_tiled.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backend_dispatch.hpp"
#include "kernel_cases.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/kernels/register_tiled/kernel.hpp"
#include "tilemm/kernels/register_tiled/launch.hpp"
#include "tilemm/kernels/registry.hpp"
#include "tilemm/matrices.hpp"
#include "tilemm/validate.hpp"

namespace tilemm::test {
namespace {

const std::vector<Shape> kShapes = {{1, 1, 1},    {1, 64, 1},     {64, 1, 33},
                                    {17, 31, 13}, {100, 37, 129}, {4097, 3, 65},
                                    {33, 45, 1},  {3, 5, 4099},   {64, 64, 64}};
const std::vector<Scaling> kScalings = {{1.0, 0.0}, {1.5, -0.5}, {-2.0, 1.0}, {0.5, 0.0}};

using KernelParam = std::tuple<std::string, int /*shape*/, Layout, int /*op*/, Precision>;

class EveryKernel : public ::testing::TestWithParam<KernelParam> {};

TEST_P(EveryKernel, MatchesLongDoubleReference) {
  const auto& [kernel, shape, layout, op, precision] = GetParam();
  if (!kernel_takes(kernel, precision)) GTEST_SKIP() << kernel << " runs in double only";
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

// Tiles that divide nothing, with team sizes 1 to 4 where the backend allows them: on OpenMP with
// two threads, team size 2 runs the barriers between two real threads.
TEST_P(TeamKernelLaunch, AnyTileAndTeamSize) {
  const auto& [kernel, layout] = GetParam();
  std::vector<std::string> tiles =
      kernel == "tiled" ? std::vector<std::string>{"8", "16x8x4", "5x7x3", "32x16x8"}
      : kernel == "tensor-tiled"
          ? std::vector<std::string>{"32x32x16/16x16",    "64x64x16/32x32",   "64x128x16/32x64",
                                     "128x64x16/64x32",  // one buffer on a GPU
                                     "128x64x8/64x32/s2", "64x128x8/32x64/s3"}  // copy stages
          : std::vector<std::string>{
                "8x16x32/8x16", "16x16x8/4x4", "32x16x4/8x8", "24x40x5/4x4",
                "16x24x6/4x8",  "4x4x2/4x4",   "4x8x2/4x4"};  // the last two: pipelined
  if (kernel == "register-tiled" && kernels::runs_on_cpu<TestSpace>()) {
    // the CPU's own (12x32 and 8x24 with AVX-512, 6x16 and 6x8 with AVX2): 2 x 2 and 3 x 2 of them
    const int mf = kernels::kCpuTileRows<float>, nf = kernels::kCpuTileCols<float>;
    const int md = kernels::kCpuTileRows<double>, nd = kernels::kCpuTileCols<double>;
    tiles.insert(tiles.end(), {Tiling{2 * mf, 2 * nf, 20, mf, nf}.to_string(),
                               Tiling{3 * md, 2 * nd, 7, md, nd}.to_string()});
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
                 Tiling{24, 64, 8, kernels::kCpuTileRows<float>, kernels::kCpuTileCols<float>}, 1),
            kernels::runs_on_cpu<TestSpace>());
}

// tensor-tiled runs the tiles of its table alone, K split as asked, and names its instruction: a
// GPU's mma, a CPU's plain multiply-adds or register-tiled's CPU schedule. On a GPU a thread a
// lane, so a team of 32 a warp.
TEST(TeamKernelLimits, TensorTiledRunsItsTable) {
  using Registry = kernels::Registry<TestSpace, float, Kokkos::LayoutRight>;
  for (const std::string tile : {"32x32x8/16x16", "64x64x16/16x16", "64x64x8"}) {
    EXPECT_FALSE(fits("tensor-tiled", *Tiling::parse(tile), 1)) << tile;
  }
  const LaunchConfig split = Registry::plan("tensor-tiled", {std::nullopt, 0, 2}, {64, 64, 4096});
  EXPECT_EQ(split.split_k, 2);
  EXPECT_EQ(split.partial_elements,
            2 * std::size_t(split.split_tiles) * split.tile.bm * split.tile.bn);
  // On a CPU the default launch runs register-tiled's CPU schedule on a team of every thread; a
  // tile of the table runs the fragments' plain multiply-adds.
  const LaunchConfig cfg = Registry::plan("tensor-tiled", {}, {64, 64, 64});
  const bool cpu = kernels::runs_on_cpu<TestSpace>();
  const std::string cpu_schedule = kernels::cpu::instruction() + " (register-tiled's CPU schedule)";
  EXPECT_EQ(cfg.instruction, cpu ? cpu_schedule : "mma.m16n8k8.tf32x3");
  EXPECT_EQ(cfg.team_size,
            cpu ? concurrency() : 32 * (cfg.tile.bm / cfg.tile.tm) * (cfg.tile.bn / cfg.tile.tn));
  EXPECT_EQ(Registry::plan("tensor-tiled", {Tiling{32, 32, 16, 16, 16}}, {64, 64, 64}).instruction,
            cpu ? "fma" : "mma.m16n8k8.tf32x3");
  EXPECT_EQ(fits("tensor-tiled", Tiling{32, 32, 16, 16, 16}, 96), false) << "4 warps are 128";
  // Float's split TF32 only from K = 10 (kSplitTf32MinK), plain FP32 products below.
  EXPECT_EQ(Registry::plan("tensor-tiled", {}, {64, 64, 9}).instruction,
            cpu ? cpu_schedule : "fma");
  EXPECT_EQ(Registry::plan("tensor-tiled", {}, {64, 64, 10}).instruction,
            cpu ? cpu_schedule : "mma.m16n8k8.tf32x3");
  using DoubleRegistry = kernels::Registry<TestSpace, double, Kokkos::LayoutRight>;
  EXPECT_NE(DoubleRegistry::plan("tensor-tiled", {}, {64, 64, 1}).instruction, "fma")
      << "double's mma products are exact at any K";
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

TEST(TeamKernelLimits, BitwiseRepeatable) {
  const int team = concurrency() >= 2 ? 2 : 1;
  for (const auto& [kernel, tile] : {std::make_pair("tiled", Tiling{16, 16, 16}),
                                     std::make_pair("register-tiled", Tiling{16, 16, 8, 4, 4}),
                                     std::make_pair("register-tiled", Tiling{4, 8, 2, 4, 4})}) {
    ASSERT_TRUE(fits(kernel, tile, team)) << kernel << " with team size " << team;
    expect_repeatable(kernel, tile, team);
  }
  expect_repeatable("tensor-tiled", Tiling{64, 64, 16, 32, 32}, 0);
  expect_repeatable("tensor-tiled", Tiling{64, 64, 16, 32, 32}, 0, {260, 132, 680}, 5);
  expect_repeatable("register-tiled", Tiling{32, 32, 8, 4, 4}, 0);  // the backend's team
  expect_repeatable("register-tiled", Tiling{64, 64, 16, 4, 4}, 0, {260, 132, 68});
  expect_repeatable("register-tiled", Tiling{64, 64, 16, 4, 4}, 0, {260, 132, 680}, 5);
}

}  // namespace
}  // namespace tilemm::test
