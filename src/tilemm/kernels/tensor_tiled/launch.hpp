// The tensor-tiled kernel's launch (tensor_tiled/kernel.hpp holds the kernel): its table of
// compiled tiles, the default tile per backend, precision and op, the checks of a launch, and the
// launch.
//
// Tiles, BMxBNxBK/WMxWN (WM x WN: a warp's region), a team of 32 lanes a warp on a GPU:
//   128x128x16/64x32  8 warps  split TF32 (m16n8k8) in float; double: one buffer, m16n8k16
//   128x128x8/64x32   8 warps  m16n8k8 f64 in double
//   128x64x16/64x32   4 warps  two teams a GPU multiprocessor; double's default where copies
//                              cannot engage (below): one buffer, m16n8k16
//   128x64x8/64x32    4 warps  float's default where copies cannot engage; double-buffered in
//                              double too (m16n8k8)
//   64x128x16/32x64   4 warps  the same, the warps' regions wide
//   64x64x16/32x32    4 warps  the default for products of too few large tiles (m16n8k16 in double)
//   32x32x16/16x16    4 warps  the smallest; the default on CPUs, which emulate the warps
// and tiles whose panels are copied asynchronously, S K blocks in flight (/sS,
// tensor_tiled/kernel.hpp), where S buffers fit a CUDA team's scratch (else the plan refuses them):
//   128x64x8/64x32/s2, 128x64x8/64x32/s3, 128x64x8/64x32/s4 (float), 64x128x8/32x64/s3,
//   128x64x16/64x32/s2 (float), and in float's wide schedule of K blocks (warp/wide_tf32.hpp)
//   128x64x16/64x32/s3 and 128x128x16/64x32/s2 (8 warps),
// whose copies can engage only where op(A) runs along k and op(B) along n in memory (NN in
// LayoutRight, TT in LayoutLeft); there a GPU's default is one of them (best_tile).
// The panels are double-buffered in level-0 scratch where two buffers fit it, else single-buffered
// (tensor_tiled/kernel.hpp, perf/README.md). K is split as the spec asks (epilogue/split_k.hpp),
// the tiles before the split ones run whole K in a launch of their own; by default on a GPU where C
// has too few tiles for its multiprocessors and K is long (default_split). Float with K below
// kSplitTf32MinK runs the plain FP32 product on a GPU too (instruction `fma`): split TF32 meets
// FP32's (k + 2) eps bound only from there on (perf/README.md, "Float accuracy of split TF32").
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tilemm/kernels/tensor_tiled/kernel.hpp"

namespace tilemm::kernels {

/// The launch of the tensor-tiled kernel: its table of tiles, its defaults and its checks.
template <class ExecSpace, class Scalar, class Layout>
struct TensorTiled {
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  template <class Tile>
  using Kernel = TensorTiledGemm<ExecSpace, Scalar, Layout, Tile>;
  template <class Tile, bool Plain, bool WholeK>
  using Form = TensorTiledGemm<ExecSpace, Scalar, Layout, Tile, Plain, WholeK>;
  static constexpr bool kCpu = runs_on_cpu<ExecSpace>();

  using Tiles =
      TypeList<TensorTile<128, 128, 16, 64, 32>, TensorTile<128, 128, 8, 64, 32>,
               TensorTile<128, 64, 16, 64, 32>, TensorTile<128, 64, 8, 64, 32>,
               TensorTile<64, 128, 16, 32, 64>, TensorTile<64, 64, 16, 32, 32>,
               TensorTile<32, 32, 16, 16, 16>, TensorTile<128, 64, 8, 64, 32, 2>,
               TensorTile<128, 64, 8, 64, 32, 4>, TensorTile<64, 128, 8, 32, 64, 3>,
               TensorTile<128, 64, 16, 64, 32, 2>, TensorTile<128, 64, 8, 64, 32, 3>,
               TensorTile<128, 64, 16, 64, 32, 3, true>, TensorTile<128, 128, 16, 64, 32, 2, true>>;
  static std::string table() {
    return "128x128x16/64x32, 128x128x8/64x32, 128x64x16/64x32, 128x64x8/64x32, "
           "64x128x16/32x64, 64x64x16/32x32, 32x32x16/16x16, 128x64x8/64x32/s2, "
           "128x64x8/64x32/s4, 64x128x8/32x64/s3, 128x64x16/64x32/s2, 128x64x8/64x32/s3, "
           "128x64x16/64x32/s3, 128x128x16/64x32/s2";
  }
  /// The shortest K at which float runs split TF32 on a GPU: each product carries up to 12 u of
  /// representation error (u = 2^-24), so (k + 14) u must stay within (k + 2) eps = (2k + 4) u.
  static constexpr std::int64_t kSplitTf32MinK = 10;
  /// Whether a GPU's lanes run the plain product instead of the warps' mma.
  static bool plain(const Extents& e) {
    return kCpu || (std::is_same_v<Scalar, float> && e.k < kSplitTf32MinK);
  }
  /// Calls f(kernel) with the kernel compiled for tile t; throws LaunchError for a tile that is
  /// not in the table, or whose copy stages pass a CUDA team's scratch in this precision (a
  /// kernel that could never launch is not compiled).
  template <class F>
  static void with_tile(const Tiling& t, F&& f) {
    const bool found = any_of_types(Tiles{}, [&](auto tile) {
      using T = decltype(tile);
      if (!(t == T::tiling())) return false;
      if constexpr (!kCpu && Kernel<T>::scratch_bytes() > Kernel<T>::kLevel0Bytes) {
        throw LaunchError(LaunchLimit::Tile,
                          "tile " + t.to_string() + " needs " +
                              std::to_string(Kernel<T>::scratch_bytes()) +
                              " bytes of team scratch in this precision; a GPU team has " +
                              std::to_string(Kernel<T>::kLevel0Bytes));
      } else {
        f(Kernel<T>{});
      }
      return true;
    });
    if (!found) {
      throw LaunchError(LaunchLimit::Tile,
                        "tile " + t.to_string() + ": the tensor-tiled kernel has tiles " + table());
    }
  }

  /// Processors that each want a team: CPU threads; GPU multiprocessors (2048 threads of Kokkos'
  /// concurrency each).
  static std::int64_t processors() {
    return kCpu ? ExecSpace().concurrency() : ExecSpace().concurrency() / 2048;
  }
  /// Whether a tile's copy stages can engage in the op and layout of e: where op(A) runs along k
  /// and op(B) along n in memory (NN in LayoutRight, TT in LayoutLeft). Inner tiles then copy
  /// where K divides into their blocks and the leading dimensions into aligned runs.
  static bool copies_can_engage(const Extents& e) {
    constexpr bool right = std::is_same_v<Layout, Kokkos::LayoutRight>;
    return (e.trans_a == Trans::N) == right && (e.trans_b == Trans::N) == right;
  }
  /// Double's default where the copies can engage.
  static constexpr Tiling kDoubleCopyTile{128, 64, 8, 64, 32, 3};
  /// The GPU's default by precision and by whether the copies can engage: the fastest tile
  /// measured there (perf/README.md). (A tile with copy stages is correct where they do not engage
  /// too: it stages its panels in registers.)
  static Tiling best_tile(bool copies) {
    // Rows float, double; columns: the copies cannot engage, can.
    const Tiling table[2][2] = {{{128, 64, 8, 64, 32}, {128, 64, 16, 64, 32, 3}},
                                {{128, 64, 16, 64, 32}, kDoubleCopyTile}};
    return table[sizeof(Scalar) == 8][copies];
  }
  /// best_tile's neighbour in the other orientation (64 rows for 128 columns, or the reverse), by
  /// precision and copies as best_tile: a split's tile for a C of 64 rows or columns.
  static Tiling turned_tile(bool copies) {
    const Tiling table[2][2] = {{{64, 128, 16, 32, 64}, {64, 128, 8, 32, 64, 3}},
                                {{64, 128, 16, 32, 64}, {64, 128, 8, 32, 64, 3}}};
    return table[sizeof(Scalar) == 8][copies];
  }
  static Tiling default_tile(const Extents& e) {
    return kCpu ? Tiling{32, 32, 16, 16, 16} : gpu_tile(e, processors());
  }
  /// A GPU's default tile with `multiprocessors`: best_tile where it gives every
  /// multiprocessor a team, else the next smaller one that does. Where only the smallest would, and
  /// K splits (default_split), the first of best_tile, turned_tile and 64x64 that covers C with at
  /// most a quarter of its area outside, its teams made by splitting K rather than by the smallest
  /// tile, whose teams have the fewest products a load.
  static Tiling gpu_tile(const Extents& e, std::int64_t multiprocessors) {
    const bool copies = copies_can_engage(e);
    const std::vector<Tiling> candidates = {
        best_tile(copies), {64, 64, 16, 32, 32}, {32, 32, 16, 16, 16}};
    for (const Tiling& t : candidates) {
      if (tiles_of(t, e.m, e.n) >= multiprocessors && !(t == candidates.back())) return t;
    }
    for (const Tiling& t : {best_tile(copies), turned_tile(copies), candidates[1]}) {
      if (padding(t, e) <= 1.25 && default_split(t, e, multiprocessors).ranges > 1) return t;
    }
    return candidates.back();
  }

  /// The least depth of K a default split gives a range: a range's partial tile costs a store of
  /// each element and a load by the sum pass against this many multiply-adds of it, and a team
  /// fills and drains its pipeline once a range (S - 1 K blocks copied ahead, its tile stored):
  /// 512 of K are 32 to 64 K blocks.
  static constexpr std::int64_t kMinSplitDepth = 512;
  /// Teams of tile t that a GPU of `multiprocessors` runs at once: as many as fit a
  /// multiprocessor's 65536 registers at the most a thread may take (255, allocated as 256; the
  /// launch bounds ask for one team): two of 4 warps, one of 8.
  static std::int64_t team_slots(const Tiling& t, std::int64_t multiprocessors) {
    const int lanes = 32 * (t.bm / t.tm) * (t.bn / t.tn);
    return multiprocessors * std::max(1, 65536 / (256 * lanes));
  }
  /// The default split of K for tile t on a GPU of `multiprocessors`: where C's tiles
  /// leave team slots empty, every tile in as many ranges as fill the slots, at most K /
  /// kMinSplitDepth (64 x 4096 x 4096: 32 tiles of 64x128 in 8 ranges of 512, 256 teams for 132
  /// multiprocessors of two); none where the tiles fill them (square n >= 1024) or K is short.
  static KSplit default_split(const Tiling& t, const Extents& e, std::int64_t multiprocessors) {
    const std::int64_t tiles = tiles_of(t, e.m, e.n);
    if (tiles == 0) return {};
    const std::int64_t ranges =
        std::min(team_slots(t, multiprocessors) / tiles, e.k / kMinSplitDepth);
    const int count = ranges > 1 ? split_count(e.k, t.bk, int(ranges)) : 1;
    return count > 1 ? KSplit{count, tiles} : KSplit{};
  }

  /// Calls f(kernel) with the kernel that runs cfg's tile: the plain products where cfg's
  /// instruction is `fma` on a GPU, compiled for whole K where `whole` (on CPUs one kernel runs
  /// both, the plain products).
  template <class F>
  static void with_kernel(const LaunchConfig& cfg, bool whole, F&& f) {
    with_tile(cfg.tile, [&](auto kernel) {
      using T = typename decltype(kernel)::TileType;
      if constexpr (kCpu) {
        f(Form<T, false, false>{});
      } else {
        if constexpr (std::is_same_v<Scalar, float>) {
          if (cfg.instruction == "fma")
            return whole ? f(Form<T, true, true>{}) : f(Form<T, true, false>{});
        }
        whole ? f(Form<T, false, true>{}) : f(Form<T, false, false>{});
      }
    });
  }

  static LaunchConfig plan(const LaunchRequest& request, const Extents& extents) {
    LaunchConfig cfg;
    cfg.tile = request.tile.value_or(default_tile(extents));
    with_tile(cfg.tile, [&](auto kernel) {
      using K = decltype(kernel);
      // A GPU runs a thread a lane; a CPU team of any size takes the lanes in turn.
      cfg.team_size = request.team_size ? request.team_size : (kCpu ? 1 : K::kLanes);
      if (!kCpu && cfg.team_size != K::kLanes) {
        throw LaunchError(LaunchLimit::TeamSize, "team size " + std::to_string(cfg.team_size) +
                                                     ": tile " + cfg.tile.to_string() + " runs " +
                                                     std::to_string(K::kLanes) +
                                                     " threads on a GPU, 32 for each warp");
      }
      cfg.vector_length = 1;
      cfg.scratch_bytes = K::scratch_bytes();
      cfg.scratch_level = kCpu ? 1 : 0;  // a CPU's caches serve the panels and accumulators
      cfg.instruction = plain(extents) ? "fma" : mma_instruction<Scalar>(K::kInstK);
    });
    // The spec's split, none for a tile it names without one, else a GPU's default
    // (epilogue/split_k.hpp).
    plan_split(request, extents, cfg,
               [&] { return kCpu ? KSplit{} : default_split(cfg.tile, extents, processors()); });
    // The kernels the launches run: the whole tiles', the split tiles'.
    for_each_launch(cfg, tiles_of(cfg.tile, extents.m, extents.n), static_cast<Scalar*>(nullptr),
                    [&](const LaunchConfig& launch, Scalar*, int, int) {
                      with_kernel(launch, launch.split_k == 1,
                                  [&](auto kernel) { check_team_launch(kernel, launch); });
                    });
    return cfg;
  }

  /// Runs tile_count tiles of C from tile_begin in the tile order with kernel type K, K split as
  /// cfg says into `partials` (cfg.partial_elements scalars of the backend's memory), then their
  /// sum pass.
  template <class K>
  static void launch(const Operands& g, const LaunchConfig& cfg, Scalar* partials, int tile_begin,
                     int tile_count) {
    K k{g, ceil_div(g.m(), K::BM), ceil_div(g.n(), K::BN), g.a.runs_aligned(4),
        g.b.runs_aligned(4)};
    k.splits = cfg.split_k;
    k.k_split = split_length(g.k(), K::BK, cfg.split_k);
    k.partials = partials;
    k.tile_begin = tile_begin;
    k.tile_count = tile_count;
    typename K::Policy policy(tile_count * cfg.split_k, cfg.team_size, cfg.vector_length);
    Kokkos::parallel_for(
        "tilemm::tensor_tiled",
        policy.set_scratch_size(cfg.scratch_level, Kokkos::PerTeam(cfg.scratch_bytes)), k);
    if (cfg.split_k > 1) {
      sum_splits<ExecSpace>("tilemm::tensor_tiled::sum_splits", g, partials, K::BM, K::BN,
                            cfg.split_k, tile_begin, tile_count, k);
    }
  }
  /// The tiles before the split ones run whole K in a launch of their own, then the split ones.
  static void run(const Operands& g, const LaunchConfig& cfg, Scalar* partials) {
    for_each_launch(cfg, tiles_of(cfg.tile, g.m(), g.n()), partials,
                    [&](const LaunchConfig& one, Scalar* into, int begin, int count) {
                      with_kernel(one, one.split_k == 1, [&](auto kernel) {
                        launch<decltype(kernel)>(g, one, into, begin, count);
                      });
                    });
  }
};

}  // namespace tilemm::kernels
