// tensor-tiled's own cases: float's split TF32 at the edges of its threshold and on data of a wide
// dynamic range, and the tiles whose panels are copied in stages, in every layout and op.
#include <gtest/gtest.h>

#include <optional>
#include <utility>
#include <vector>

#include "kernel_cases.hpp"

namespace tilemm::test {
namespace {

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

// Float from the tensor cores' TF32 still meets FP32's bound (split TF32), on data of a wide
// dynamic range too, in every layout and op, in the default tile and float's largest.
TEST(TensorTiledFloat, WideRangeMatchesLongDoubleReference) {
  for (const auto& tile : {std::optional<Tiling>{}, Tiling::parse("128x128x16/64x32/s2")}) {
    Case c{"tensor-tiled", {150, 137, 300},  Layout::Right, Trans::N,
           Trans::N,       Precision::Float, {1.5, -0.5},   {tile}};
    c.wide = true;
    check_layouts_and_ops(c);
  }
}

// Tiles with copy stages, in every layout and op: the leading dimensions divide into runs of 4,
// so that on a GPU the inner tiles copy their panels asynchronously (the edge tiles stage them),
// K a multiple of their blocks (96) and not (92: the last, partial block loaded element by
// element), in every tile of the table with stages that fits the precision, float on data of a
// wide range.
TEST(TensorTiledCopies, MatchLongDoubleReference) {
  const std::vector<std::pair<const char*, bool>> tiles = {
      {"128x64x8/64x32/s2", true}, {"128x64x8/64x32/s3", true},   {"128x64x8/64x32/s4", false},
      {"64x128x8/32x64/s3", true}, {"128x64x16/64x32/s3", false}, {"128x128x16/64x32/s2", false}};
  for (const auto& [tile, in_double] : tiles) {
    for (const Precision precision : {Precision::Float, Precision::Double}) {
      if (precision == Precision::Double && !in_double) continue;
      for (const int k : {96, 92}) {
        Case c{"tensor-tiled", {200, 196, k}, Layout::Right, Trans::N,
               Trans::N,       precision,     {1.5, -0.5},   {Tiling::parse(tile)}};
        c.wide = precision == Precision::Float;
        check_layouts_and_ops(c);
      }
    }
  }
}

}  // namespace
}  // namespace tilemm::test
