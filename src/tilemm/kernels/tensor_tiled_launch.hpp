// The tensor-tiled kernel's launch (tensor_tiled.hpp holds the kernel): its table of compiled
// tiles, the default tile per backend, precision and op, the checks of a launch, and the launch.
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
// and tiles whose panels are copied asynchronously, S K blocks in flight (/sS, tensor_tiled.hpp),
// where S buffers fit a CUDA team's scratch (else the plan refuses them):
//   128x64x8/64x32/s2, 128x64x8/64x32/s3, 128x64x8/64x32/s4 (float), 64x128x8/32x64/s3,
//   128x64x16/64x32/s2 (float), and in float's wide schedule of K blocks (tensor_tiled_wide.hpp)
//   128x64x16/64x32/s3 and 128x128x16/64x32/s2 (8 warps),
// whose copies can engage only where op(A) runs along k and op(B) along n in memory (NN in
// LayoutRight, TT in LayoutLeft); there a GPU's default is one of them (best_tile).
// The panels are double-buffered in level-0 scratch where two buffers fit it, else single-buffered
// (tensor_tiled.hpp, perf/README.md). K is split as the spec asks (split_k.hpp), the tiles before
// the split ones run whole K in a launch of their own. Float with K below kSplitTf32MinK runs the
// plain FP32 product on a GPU too (instruction `fma`): split TF32 meets FP32's (k + 2) eps bound
// only from there on (perf/README.md, "Float accuracy of split TF32").
#pragma once

#include <string>
#include <vector>

#include "tilemm/kernels/tensor_tiled.hpp"

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
  static constexpr Tiling kDoubleCopyTile{64, 128, 8, 32, 64, 3};
  /// The GPU's default by precision and by whether the copies can engage: the fastest tile
  /// measured there (perf/README.md). (A tile with copy stages is correct where they do not engage
  /// too: it stages its panels in registers.)
  static Tiling best_tile(bool copies) {
    // Rows float, double; columns: the copies cannot engage, can.
    const Tiling table[2][2] = {{{128, 64, 8, 64, 32}, {128, 64, 16, 64, 32, 2}},
                                {{128, 64, 16, 64, 32}, kDoubleCopyTile}};
    return table[sizeof(Scalar) == 8][copies];
  }
  /// best_tile where it gives every processor a team, else the next smaller one that does, else
  /// the smallest.
  static Tiling default_tile(const Extents& e) {
    if (kCpu) return {32, 32, 16, 16, 16};
    const std::vector<Tiling> candidates = {
        best_tile(copies_can_engage(e)), {64, 64, 16, 32, 32}, {32, 32, 16, 16, 16}};
    for (const Tiling& t : candidates) {
      if (tiles_of(t, e.m, e.n) >= processors()) return t;
    }
    return candidates.back();
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
    // The spec's split, none for a tile it names without one, else none (split_k.hpp).
    plan_split(request, extents, cfg, [] { return KSplit{}; });
    // The kernels the launch runs: the whole tiles', the split tiles'.
    const bool whole =
        cfg.split_k == 1 || cfg.split_tiles < tiles_of(cfg.tile, extents.m, extents.n);
    if (whole)
      with_kernel(cfg, true, [&](auto kernel) { check_team_launch(kernel, whole_k(cfg)); });
    if (cfg.split_k > 1)
      with_kernel(cfg, false, [&](auto kernel) { check_team_launch(kernel, cfg); });
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
    const int tiles = int(tiles_of(cfg.tile, g.m(), g.n()));
    const int split_tiles = cfg.split_k > 1 ? int(cfg.split_tiles) : 0;
    if (split_tiles < tiles) {
      with_kernel(cfg, true, [&](auto kernel) {
        launch<decltype(kernel)>(g, whole_k(cfg), nullptr, 0, tiles - split_tiles);
      });
    }
    if (split_tiles > 0) {
      with_kernel(cfg, false, [&](auto kernel) {
        launch<decltype(kernel)>(g, cfg, partials, tiles - split_tiles, split_tiles);
      });
    }
  }
};

}  // namespace tilemm::kernels
