// tensor-tiled's split of K: ranges of whole K blocks as a spec asks, against the long double
// reference; the split a plan reports; and the default a GPU takes where C has too few tiles.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>

#include "backend_dispatch.hpp"
#include "kernel_cases.hpp"
#include "tilemm/kernels/registry.hpp"
#include "tilemm/kernels/tensor_tiled/tiles.hpp"

namespace tilemm::test {
namespace {

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
  const kernels::tensor_tiles::Machine gpu{true, 132};
  const auto expect = [&](Precision p, Layout layout, const Extents& e, int ranges, int bm,
                          int bn) {
    const Tiling t = kernels::tensor_tiles::default_tile(e, layout, p, gpu);
    const kernels::KSplit split = kernels::tensor_tiles::default_split(t, e, gpu);
    const std::string shape = std::to_string(e.m) + "x" + std::to_string(e.n) + "x" +
                              std::to_string(e.k) + " in " + t.to_string();
    EXPECT_EQ(split.ranges, ranges) << shape;
    if (ranges > 1) {
      EXPECT_EQ(split.tiles, tiles_of(t, e.m, e.n)) << shape << ": every tile";
      EXPECT_EQ(std::make_pair(t.bm, t.bn), std::make_pair(bm, bn)) << shape;
    }
  };
  for (const Precision p : {Precision::Float, Precision::Double}) {
    for (const Layout layout : {Layout::Right, Layout::Left}) {
      expect(p, layout, {64, 4096, 4096}, 8, 64, 128);
      expect(p, layout, {4096, 64, 4096}, 8, 128, 64);
      expect(p, layout, {64, 64, 65536}, 128, 64, 64);
      expect(p, layout, {4096, 64, 4096, Trans::T, Trans::T}, 8, 128, 64);
      for (const std::int64_t n : {1024, 4096}) expect(p, layout, {n, n, n}, 1, 0, 0);
      expect(p, layout, {512, 512, 512}, 1, 0, 0);   // K too short
      expect(p, layout, {4096, 4096, 64}, 1, 0, 0);  // the same
      expect(p, layout, {64, 4096, 1000}, 1, 0, 0);  // one range of kMinSplitDepth
    }
  }
  // A CPU splits nothing by default and runs the smallest tile.
  const kernels::tensor_tiles::Machine cpu{false, 16};
  const Extents skinny{64, 4096, 4096};
  EXPECT_EQ(kernels::tensor_tiles::default_tile(skinny, Layout::Right, Precision::Float, cpu),
            kernels::tensor_tiles::kSmallest);
  EXPECT_EQ(
      kernels::tensor_tiles::default_split(kernels::tensor_tiles::kSmallest, skinny, cpu).ranges,
      1);
}

}  // namespace
}  // namespace tilemm::test
