// The tensor-tiled kernel's launch (tensor_tiled/kernel.hpp holds the kernel): its table of
// compiled tiles, the checks of a launch, and the launch. The defaults are
// tensor_tiled/tiles.hpp's.
//
// Tiles, BMxBNxBK/WMxWN (WM x WN: a warp's region), a team of 32 lanes a warp on a GPU, each
// compiled for the orientation of both operands (warp/operand_scratch.hpp):
//   128x64x16/64x32/s3   4 warps, 3 K blocks in flight by copies; float's wide schedule
//                        (warp/wide_tf32.hpp); float's default
//   128x128x16/64x32/s2  8 warps, float's wide schedule
//   128x64x8/64x32/s3    4 warps; double's default (m16n8k8 f64)
//   128x64x8/64x32/s2, 128x64x8/64x32/s4 (float)
//   64x128x8/32x64/s3    4 warps, the warps' regions wide: a split's tile for a C of 64 rows
//   128x64x8/64x32       4 warps, staged in registers: float's default where copies cannot engage
//   128x64x16/64x32      4 warps, one buffer in double (m16n8k16): double's default there
//   64x128x16/32x64      its turned form
//   64x64x16/32x32       4 warps: the default for products of too few large tiles
//   32x32x16/16x16       4 warps: the smallest; the default on CPUs, which emulate the warps
// A tile whose copy stages pass a CUDA team's scratch in a precision is refused there (the wide
// tiles in double). The panels are double-buffered in level-0 scratch where two buffers fit it,
// else single-buffered (tensor_tiled/kernel.hpp). K is split as the spec asks
// (epilogue/split_k.hpp), the tiles before the split ones run whole K in a launch of their own; by
// default on a GPU where C has too few tiles for its multiprocessors and K is long. Float with K
// below kSplitTf32MinK runs the plain FP32 product on a GPU too (instruction `fma`): split TF32
// meets FP32's (k + 2) eps bound only from there on.
// On CPU backends a launch whose tile the spec leaves out runs register-tiled's CPU schedule
// (cpu/launch.hpp: a micro-kernel in vector registers, where the warps' fragments would run as
// scalar multiply-adds), its instruction saying so; a tile of the table above runs the fragments.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilemm/kernels/cpu/launch.hpp"
#include "tilemm/kernels/register_tiled/instances.hpp"
#include "tilemm/kernels/tensor_tiled/kernel.hpp"
#include "tilemm/kernels/tensor_tiled/tiles.hpp"

namespace tilemm::kernels {

/// The launch of the tensor-tiled kernel for operands oriented as Orient: its table of tiles, its
/// checks, and its runs.
template <class ExecSpace, class Scalar, class Layout, class Orient>
struct TensorTiled {
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  template <class Tile, class O = Orient, Product P = Product::mma, KRange R = KRange::whole>
  using Kernel = TensorTiledGemm<ExecSpace, Scalar, Layout, Tile, O, P, R>;
  static constexpr bool kCpu = runs_on_cpu<ExecSpace>();
  static constexpr WarpSchedule kWide = WarpSchedule::wide;

  using Tiles =
      TypeList<TensorTile<128, 64, 16, 64, 32, 3, kWide>,
               TensorTile<128, 128, 16, 64, 32, 2, kWide>, TensorTile<128, 64, 8, 64, 32, 3>,
               TensorTile<128, 64, 8, 64, 32, 2>, TensorTile<128, 64, 8, 64, 32, 4>,
               TensorTile<64, 128, 8, 32, 64, 3>, TensorTile<128, 64, 8, 64, 32>,
               TensorTile<128, 64, 16, 64, 32>, TensorTile<64, 128, 16, 32, 64>,
               TensorTile<64, 64, 16, 32, 32>, TensorTile<32, 32, 16, 16, 16>>;
  static std::string table() {
    return "128x64x16/64x32/s3, 128x128x16/64x32/s2, 128x64x8/64x32/s3, 128x64x8/64x32/s2, "
           "128x64x8/64x32/s4, 64x128x8/32x64/s3, 128x64x8/64x32, 128x64x16/64x32, "
           "64x128x16/32x64, 64x64x16/32x32, 32x32x16/16x16";
  }
  /// The shortest K at which float runs split TF32 on a GPU: each product carries up to 12 u of
  /// representation error (u = 2^-24), so (k + 14) u must stay within (k + 2) eps = (2k + 4) u.
  static constexpr std::int64_t kSplitTf32MinK = 10;
  /// Whether a GPU's lanes run the plain product instead of the warps' mma.
  static bool plain(const Extents& e) {
    return kCpu || (std::is_same_v<Scalar, float> && e.k < kSplitTf32MinK);
  }
  /// Calls f(tile) with tile t of the table; throws LaunchError for a tile that is not in the
  /// table, or whose copy stages pass a CUDA team's scratch in this precision (a kernel that could
  /// never launch is not compiled).
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
        f(tile);
      }
      return true;
    });
    if (!found) {
      throw LaunchError(LaunchLimit::Tile,
                        "tile " + t.to_string() + ": the tensor-tiled kernel has tiles " + table());
    }
  }

  /// The machine the defaults are chosen for: a GPU's multiprocessors (2048 threads of Kokkos'
  /// concurrency each), or a CPU's threads.
  static tensor_tiles::Machine machine() {
    const std::int64_t threads = ExecSpace().concurrency();
    return {!kCpu, kCpu ? threads : threads / 2048};
  }
  static constexpr Precision kPrecision =
      std::is_same_v<Scalar, float> ? Precision::Float : Precision::Double;
  static constexpr tilemm::Layout kLayout =
      std::is_same_v<Layout, Kokkos::LayoutRight> ? tilemm::Layout::Right : tilemm::Layout::Left;

  /// Calls f(kernel) with the kernel that runs cfg's tile: the plain products where cfg's
  /// instruction is `fma` (on a GPU in OrientationNN, whose staging takes any operand), compiled
  /// for whole K where `whole` (on CPUs one kernel runs both, the plain products).
  template <class F>
  static void with_kernel(const LaunchConfig& cfg, bool whole, F&& f) {
    with_tile(cfg.tile, [&](auto tile) {
      using T = decltype(tile);
      if constexpr (kCpu) {
        f(Kernel<T, Orient, Product::mma, KRange::split>{});
      } else {
        if constexpr (std::is_same_v<Scalar, float>) {
          if (cfg.instruction == "fma") {
            return whole ? f(Kernel<T, OrientationNN, Product::plain, KRange::whole>{})
                         : f(Kernel<T, OrientationNN, Product::plain, KRange::split>{});
          }
        }
        whole ? f(Kernel<T>{}) : f(Kernel<T, Orient, Product::mma, KRange::split>{});
      }
    });
  }

  /// On a CPU, register-tiled's CPU schedule.
  using CpuSchedule = cpu::Launch<ExecSpace, Scalar, Layout>;

  static LaunchConfig plan(const LaunchRequest& request, const Extents& extents) {
    if constexpr (kCpu) {
      if (!request.tile) {
        LaunchConfig cfg = plan_register_tiled<ExecSpace, Scalar, Layout>(request, extents);
        cfg.instruction += " (register-tiled's CPU schedule)";
        return cfg;
      }
    }
    LaunchConfig cfg;
    cfg.tile =
        request.tile.value_or(tensor_tiles::default_tile(extents, kLayout, kPrecision, machine()));
    with_tile(cfg.tile, [&](auto tile) {
      cfg.instruction =
          plain(extents) ? "fma" : mma_instruction<Scalar>(Kernel<decltype(tile)>::kInstK);
    });
    with_kernel(cfg, true, [&](auto kernel) {
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
    });
    // The spec's split, none for a tile it names without one, else a GPU's default
    // (epilogue/split_k.hpp).
    plan_split(request, extents, cfg,
               [&] { return tensor_tiles::default_split(cfg.tile, extents, machine()); });
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
    // A plan for other ops would give the kernel another operand order's scratch.
    if (cfg.scratch_bytes < K::scratch_bytes()) {
      throw std::logic_error(
          "tensor-tiled: a launch planned with " + std::to_string(cfg.scratch_bytes) +
          " bytes of scratch runs a kernel " + "that needs " + std::to_string(K::scratch_bytes()) +
          ": was it planned for the operands' ops?");
    }
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
    if constexpr (kCpu) {
      if (CpuSchedule::runs(cfg.tile)) return run_register_tiled(g, cfg, partials);
    }
    for_each_launch(cfg, tiles_of(cfg.tile, g.m(), g.n()), partials,
                    [&](const LaunchConfig& one, Scalar* into, int begin, int count) {
                      with_kernel(one, one.split_k == 1, [&](auto kernel) {
                        launch<decltype(kernel)>(g, one, into, begin, count);
                      });
                    });
  }
};

}  // namespace tilemm::kernels
