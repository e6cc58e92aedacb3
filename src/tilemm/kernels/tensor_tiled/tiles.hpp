// tensor-tiled's default launch, as plain host functions of the problem (extents, ops, layout,
// precision) and a small description of the machine, so that tests check them on any machine
// without running a kernel. tensor_tiled/launch.hpp calls them with the backend's machine.
//
//   copies engage (every op, either layout) where both operands' leading dimensions are whole
//   16-byte runs:   float 128x64x16/64x32/s3 in the wide schedule, double 128x64x8/64x32/s3
//   else, registers stage the panels:   float 128x64x8/64x32, double 128x64x16/64x32
//   a C whose tiles of that size leave multiprocessors without a team: 64x64x16/32x32, else
//   32x32x16/16x16; but where only the smallest would, and K is long enough to split, the first
//   tile of the two above, their turned form (64 x 128) and 64x64 that covers C with at most a
//   quarter of its area outside, its teams made by splitting K
//   a CPU: 32x32x16/16x16, K whole
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tilemm/kernels/epilogue/split_k.hpp"
#include "tilemm/types.hpp"

namespace tilemm::kernels::tensor_tiles {

/// What the defaults know of the machine: a GPU or a CPU, and how many processors each want a
/// team (a GPU's multiprocessors, a CPU's threads).
struct Machine {
  bool gpu = true;
  std::int64_t processors = 1;
};

/// The scalars of an operand stored as tilemm stores it (a whole view, rows or columns one after
/// another) between neighbouring lines: op(X) rows x cols, transposed when `t`.
inline std::int64_t leading(Layout layout, Trans t, std::int64_t rows, std::int64_t cols) {
  const bool stored_rows_first = (layout == Layout::Right) != (t == Trans::T);
  return stored_rows_first ? cols : rows;  // a stored row's length, or a stored column's
}
/// Whether the copy stages can engage on a product's inner tiles: both operands' lines whole
/// 16-byte runs (4 scalars: the Quad loads that the staging checks), in any op and layout.
inline bool copies_can_engage(const Extents& e, Layout layout) {
  return leading(layout, e.trans_a, e.m, e.k) % 4 == 0 &&
         leading(layout, e.trans_b, e.k, e.n) % 4 == 0;
}

/// The GPU's fastest tile measured where copies engage, the same in every orientation of the
/// operands, and where they cannot (perf/README.md, "Every op and layout").
inline Tiling best_tile(Precision p, bool copies) {
  if (p == Precision::Float)
    return copies ? Tiling{128, 64, 16, 64, 32, 3} : Tiling{128, 64, 8, 64, 32};
  return copies ? Tiling{128, 64, 8, 64, 32, 3} : Tiling{128, 64, 16, 64, 32};
}
/// best_tile's neighbour in the other orientation (64 rows for 128 columns): a split's tile for a
/// C of 64 rows or columns.
inline Tiling turned_tile(bool copies) {
  return copies ? Tiling{64, 128, 8, 32, 64, 3} : Tiling{64, 128, 16, 32, 64};
}
inline constexpr Tiling kMiddle{64, 64, 16, 32, 32}, kSmallest{32, 32, 16, 16, 16};

/// The least depth of K a default split gives a range: a range's partial tile costs a store of
/// each element and a load by the sum pass against this many multiply-adds of it, and a team
/// fills and drains its pipeline once a range (S - 1 K blocks copied ahead, its tile stored):
/// 512 of K are 32 to 64 K blocks.
inline constexpr std::int64_t kMinSplitDepth = 512;

/// Teams of tile t that a GPU runs at once: as many as fit a multiprocessor's 65536 registers at
/// the most a thread may take (255, allocated as 256; the launch bounds ask for one team): two of
/// 4 warps, one of 8.
inline std::int64_t team_slots(const Tiling& t, const Machine& machine) {
  const std::int64_t lanes = 32 * (t.bm / t.tm) * (t.bn / t.tn);
  return machine.processors * std::max<std::int64_t>(1, 65536 / (256 * lanes));
}

/// The default split of K for tile t: where C's tiles leave a GPU's team slots empty, every tile
/// in as many ranges as fill the slots, at most K / kMinSplitDepth (64 x 4096 x 4096: 32 tiles of
/// 64x128 in 8 ranges of 512, 256 teams for 132 multiprocessors of two); none where the tiles fill
/// them (square n >= 1024), where K is short, or on a CPU.
inline KSplit default_split(const Tiling& t, const Extents& e, const Machine& machine) {
  const std::int64_t tiles = tiles_of(t, e.m, e.n);
  if (!machine.gpu || tiles == 0) return {};
  const std::int64_t ranges = std::min(team_slots(t, machine) / tiles, e.k / kMinSplitDepth);
  const int count = ranges > 1 ? split_count(e.k, t.bk, int(ranges)) : 1;
  return count > 1 ? KSplit{count, tiles} : KSplit{};
}

/// The default tile (see above).
inline Tiling default_tile(const Extents& e, Layout layout, Precision p, const Machine& machine) {
  if (!machine.gpu) return kSmallest;
  const bool copies = copies_can_engage(e, layout);
  const Tiling best = best_tile(p, copies);
  for (const Tiling& t : {best, kMiddle}) {
    if (tiles_of(t, e.m, e.n) >= machine.processors) return t;
  }
  for (const Tiling& t : {best, turned_tile(copies), kMiddle}) {
    if (padding(t, e) <= 1.25 && default_split(t, e, machine).ranges > 1) return t;
  }
  return kSmallest;
}

}  // namespace tilemm::kernels::tensor_tiles
