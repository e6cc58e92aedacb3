// A split of K, as the tiled kernels run it (register_tiled/kernel.hpp, tensor_tiled/kernel.hpp):
// for a C of few tiles and a long K, teams take the launch's tiles for each of `splits` ranges of
// K, ranges of whole K blocks, and store their accumulators unscaled as the partial tile of their
// range; a second pass adds the partials:
//
//   partials: for each range s, for each of the launch's tiles (tile_count of them from
//   tile_begin in the kernel's tile order), a bm x bn tile in C's layout
//   sum pass, a thread an element of the launch's tiles:
//     sum = partial 0 + partial 1 + ...      in range order, so that a result is repeatable
//     C = alpha * sum + beta * C             elements outside C skipped (never stored)
//
// What depends on the kernel (its tile order, where its threads hold the accumulators) stays in
// the kernel; this file holds the ranges, the partials' layout and size, the plan's choice of a
// split, and the sum pass.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/launch_error.hpp"
#include "tilemm/types.hpp"

namespace tilemm::kernels {

/// A split of K: `ranges` ranges for the last `tiles` tiles of C in the tile order (all of them,
/// or a last wave's), the tiles before them whole; {1, 0} is no split.
struct KSplit {
  int ranges = 1;
  std::int64_t tiles = 0;
};

/// The ranges a split into `requested` makes of K in whole K blocks (fewer when K has fewer
/// blocks, or when whole blocks divide into fewer: 10 blocks in 4 are 3 + 3 + 3 + 1, in 6 are
/// 5 of 2); each is nonempty.
inline int split_count(std::int64_t K, int bk, int requested) {
  if (K <= 0 || requested <= 1) return 1;
  const std::int64_t blocks = ceil_div(K, bk), per_split = ceil_div(blocks, requested);
  return ceil_div(blocks, per_split);
}
/// The length of each of `splits` ranges of K: whole K blocks, as even as they divide (the last
/// range takes what is left).
inline int split_length(int K, int bk, int splits) {
  return splits > 1 ? ceil_div(ceil_div(K, bk), splits) * bk : K;
}
/// The scalars of partials a split of `splits` ranges over `tiles` tiles of bm x bn takes.
inline std::size_t partial_size(int bm, int bn, std::int64_t tiles, int splits) {
  return std::size_t(splits) * std::size_t(tiles) * std::size_t(bm) * std::size_t(bn);
}
/// The area whole tiles of t cover over C's area: 1 when t divides C. A split's tile is chosen to
/// cover C with little outside, since its teams are few and each is deep.
inline double padding(const Tiling& t, const Extents& e) {
  return double(ceil_div(e.m, t.bm)) * t.bm / double(e.m) * ceil_div(e.n, t.bn) * t.bn /
         double(e.n);
}
/// Where element (r, c) of the launch's tile `local` (its place from tile_begin) lies in the
/// partial tiles of range `split`: a bm x bn tile in C's layout, a range's tiles one after
/// another. `k`: the kernel, with its tile k.bm() x k.bn() and the launch's k.tile_count.
template <class Layout, class Kernel>
KOKKOS_INLINE_FUNCTION std::size_t partial_offset(const Kernel& k, int split, int local, int r,
                                                  int c) {
  constexpr bool right = std::is_same_v<Layout, Kokkos::LayoutRight>;
  const std::size_t tile = std::size_t(split) * k.tile_count + local;
  return right ? (tile * k.bm() + r) * k.bn() + c : (tile * k.bn() + c) * k.bm() + r;
}

/// Settles cfg's split (cfg.tile set): the request's split_k, of every tile unless it names how
/// many (the last in the tile order); none for a tile the request names without a split, so that
/// a tile sweep compares tiles alone; else by_default(). Sets split_k to the ranges K's blocks
/// make, split_tiles, and partial_elements for the workspace; throws LaunchError (SplitK) where
/// the teams would pass a launch's int.
template <class Default>
void plan_split(const LaunchRequest& request, const Extents& e, LaunchConfig& cfg,
                Default&& by_default) {
  const Tiling& t = cfg.tile;
  const std::int64_t tiles = tiles_of(t, e.m, e.n);
  const KSplit split =
      request.split_k ? KSplit{request.split_k, request.split_tiles ? request.split_tiles : tiles}
      : request.tile  ? KSplit{}
                      : by_default();
  const std::int64_t split_tiles = std::min(split.tiles, tiles);
  cfg.split_k = split_tiles > 0 ? split_count(e.k, t.bk, split.ranges) : 1;
  cfg.split_tiles = cfg.split_k > 1 ? split_tiles : 0;
  // (Unsplit, Registry::plan's within_int refuses a league that large.)
  // (Divided, not multiplied: 2^31 - 1 square in 4x4 tiles is 2.9e17 tiles, and 4096 ranges of
  // them pass 2^63.)
  if (cfg.split_k > 1 && cfg.split_tiles > std::numeric_limits<int>::max() / cfg.split_k) {
    throw LaunchError(LaunchLimit::SplitK,
                      "tile " + t.to_string() + " on a " + std::to_string(e.m) + " x " +
                          std::to_string(e.n) + " C in " + std::to_string(cfg.split_k) +
                          " ranges of K makes more teams than a launch takes (" +
                          std::to_string(std::numeric_limits<int>::max()) + ")");
  }
  if (cfg.split_k > 1)
    cfg.partial_elements = partial_size(t.bm, t.bn, cfg.split_tiles, cfg.split_k);
}

/// The launch of the tiles before the split ones: cfg's, with K whole.
inline LaunchConfig whole_k(LaunchConfig cfg) {
  cfg.split_k = 1;
  return cfg;
}

/// Calls run(launch, partials, tile_begin, tile_count) for each launch of a run that cfg splits
/// over C's `tiles` tiles: the tiles before the split ones with K whole (whole_k(cfg), no
/// partials), then the split ones into `partials`; one launch of all tiles when K is not split.
template <class Scalar, class Run>
void for_each_launch(const LaunchConfig& cfg, std::int64_t tiles, Scalar* partials, Run&& run) {
  const int split_tiles = cfg.split_k > 1 ? int(cfg.split_tiles) : 0;
  if (split_tiles < tiles)
    run(whole_k(cfg), static_cast<Scalar*>(nullptr), 0, int(tiles) - split_tiles);
  if (split_tiles > 0) run(cfg, partials, int(tiles) - split_tiles, split_tiles);
}

/// The sum pass over the partials of a launch of `tile_count` tiles of bm x bn from tile_begin,
/// in `splits` ranges: C = alpha * (partial 0 + partial 1 + ...) + beta * C, the partials added
/// in the order of their ranges, so that a result does not change from run to run. `order` is
/// the kernel, whose tile_of(rank, tile_m, tile_n) gives its tile order.
template <class ExecSpace, class Operands, class Order>
void sum_splits(const char* label, const Operands& g,
                const typename Operands::scalar_type* partials, int bm, int bn, int splits,
                int tile_begin, int tile_count, const Order& order) {
  using Scalar = typename Operands::scalar_type;
  constexpr bool right = std::is_same_v<typename Operands::layout, Kokkos::LayoutRight>;
  const std::int64_t area = std::int64_t(bm) * bn, per_split = area * tile_count;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, per_split),
      KOKKOS_LAMBDA(const std::int64_t e) {
        // e runs along a partial tile's memory, in C's layout, so that neighbouring threads
        // touch neighbouring elements of C too.
        const int local = int(e / area), in_tile = int(e % area);
        const int r = right ? in_tile / bn : in_tile % bm;
        const int c = right ? in_tile % bn : in_tile / bm;
        int tile_m, tile_n;
        order.tile_of(tile_begin + local, tile_m, tile_n);
        const int row = tile_m * bm + r, col = tile_n * bn + c;
        if (row >= g.m() || col >= g.n()) return;  // never stored: outside C
        Scalar sum = partials[e];
        for (int s = 1; s < splits; ++s) sum += partials[s * per_split + e];
        scale_into(g.c(row, col), sum, g.alpha, g.beta);
      });
}

}  // namespace tilemm::kernels
