// register-tiled's own cases: the tiles a GPU build compiles with fixed extents, with paired and
// scalar loads and 32-bit offsets, the CPU's own thread tiles and the CPU schedule, and splits of
// K.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backend_dispatch.hpp"
#include "kernel_cases.hpp"
#include "tilemm/kernels/register_tiled/kernel.hpp"
#include "tilemm/kernels/register_tiled/launch.hpp"
#include "tilemm/kernels/registry.hpp"

namespace tilemm::test {
namespace {

// The tiles a GPU build compiles with fixed extents (register_tiled/launch.hpp, with_fixed_tile;
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
// and A and B lie on 16 bytes, a scalar a load otherwise (register_tiled/launch.hpp, pairs_fit):
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
// kernel with the tile read at run time (register_tiled/shares.hpp, offsets_fit). Float's tiles
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

/// A tile of rows x cols of the CPU's own thread tiles of a precision (host_vector.hpp), `depth`
/// deep: "BMxBNxBK/TMxTN".
template <class Scalar>
std::string cpu_tile(int rows, int cols, int depth) {
  const int tm = kernels::kCpuTileRows<Scalar>, tn = kernels::kCpuTileCols<Scalar>;
  return std::to_string(rows * tm) + "x" + std::to_string(cols * tn) + "x" + std::to_string(depth) +
         "/" + std::to_string(tm) + "x" + std::to_string(tn);
}

// The CPU's default tiles (a team of one thread, rows of vector registers where the compiler has
// vector types), in both precisions: several tiles, K blocks and edges in every direction, op(A)
// read from either order of its panel (op N and T).
TEST(RegisterTiledCpuTiles, MatchLongDoubleReference) {
  if constexpr (!kernels::runs_on_cpu<TestSpace>()) {
    GTEST_SKIP() << "CPU tiles";
  } else {
    for (const auto& [tile, precision] :
         {std::make_pair(cpu_tile<float>(4, 2, 32), Precision::Float),
          std::make_pair(cpu_tile<double>(4, 4, 16), Precision::Double)}) {
      check_layouts_and_ops("register-tiled", {101, 150, 77}, precision, {1.5, -0.5},
                            {Tiling::parse(tile), 1});
    }
  }
}

// The CPU schedule (kernels/cpu/) with caches so small that its default blocks cut these shapes
// in every loop: kc 16, mc 60 and nc 256 in float (K in 5 blocks, C's rows in bands, its columns
// in 2 tiles at 301 x 300 x 77), ragged in m, n and k; a long K; a C of one element. Every op and
// layout, beta 0 on a poisoned C, beta != 0, alpha 0; the default team (every thread) and teams
// of one thread.
TEST(RegisterTiledCpuSchedule, EdgesOfEveryLoop) {
  if constexpr (!kernels::runs_on_cpu<TestSpace>()) {
    GTEST_SKIP() << "the CPU schedule";
  } else {
    const CpuCaches tiny{2048, 8192, 32768, 2, 4, 4, 64};
    const auto launch = [&](int team) {
      LaunchRequest request{std::nullopt, team};
      request.caches = tiny;
      return request;
    };
    for (const Precision precision : {Precision::Float, Precision::Double}) {
      check_layouts_and_ops("register-tiled", {301, 300, 77}, precision, {1.5, -0.5}, launch(0));
      check_layouts_and_ops("register-tiled", {301, 300, 77}, precision, {1.0, 0.0}, launch(1));
      for (const Shape shape : {Shape{13, 45, 300}, Shape{1, 1, 1}}) {
        for (const Scaling scaling : {Scaling{1.5, -0.5}, Scaling{1.0, 0.0}, Scaling{0.0, 2.0}}) {
          for (const int team : {0, 1}) {
            check_layouts_and_ops("register-tiled", shape, precision, scaling, launch(team));
          }
        }
      }
    }
  }
}

// The CPU schedule with K split as a spec asks (ranges that leave the last one short), the last
// tiles alone, and by default for a C of fewer micro-tiles than threads and a long K; its
// results repeat bit for bit on a team of two threads.
TEST(RegisterTiledCpuSchedule, SplitKAndRepeatability) {
  if constexpr (!kernels::runs_on_cpu<TestSpace>()) {
    GTEST_SKIP() << "the CPU schedule";
  } else {
    const std::pair<std::string, Precision> tiles[] = {
        {cpu_tile<float>(2, 2, 16), Precision::Float},
        {cpu_tile<double>(3, 2, 16), Precision::Double}};
    for (const auto& [tile, precision] : tiles) {
      for (const auto& [split, split_tiles, scaling] : {std::tuple{3, 0, Scaling{1.5, -0.5}},
                                                        {7, 0, Scaling{1.5, -0.5}},
                                                        {3, 2, Scaling{1.0, 0.0}}}) {
        check_layouts_and_ops("register-tiled", {67, 140, 300}, precision, scaling,
                              {Tiling::parse(tile), 0, split, split_tiles});
      }
    }
    using Registry = kernels::Registry<TestSpace, double, Kokkos::LayoutRight>;
    const LaunchConfig small = Registry::plan("register-tiled", {}, {5, 7, 2048});
    EXPECT_EQ(small.split_k > 1, concurrency() >= 2);
    EXPECT_EQ(small.team_size, 1);
    check_layouts_and_ops("register-tiled", {5, 7, 2048}, Precision::Double, {1.5, -0.5}, {});
    const Tiling cpu_tile = *Tiling::parse(tiles[1].first);
    expect_repeatable("register-tiled", cpu_tile, std::min(2, concurrency()), {100, 37, 129});
  }
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

}  // namespace
}  // namespace tilemm::test
