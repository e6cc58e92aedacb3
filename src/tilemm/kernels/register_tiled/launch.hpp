// The register-tiled kernel's launch (register_tiled/kernel.hpp holds the kernel): which compiled
// kernel runs a launch (the tables CompiledTiles and with_flags, then with_kernel), the default
// tile per backend and precision, the split of K for few tiles and a long K, the limits a launch is
// checked against before anything runs, and the launch itself (run, run_kernel). On CPU backends
// the CPU thread tiles, and every launch whose tile the spec leaves out, run the CPU schedule
// (cpu/launch.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tilemm/kernels/cpu/launch.hpp"
#include "tilemm/kernels/host_vector.hpp"
#include "tilemm/kernels/register_tiled/kernel.hpp"

namespace tilemm::kernels {

/// The launch of the register-tiled kernel: its defaults per backend and precision, its limits,
/// and the thread tiles (TM x TN) compiled in.
template <class ExecSpace, class Scalar, class Layout>
struct RegisterTiled {
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;

  template <class Variant>
  using KernelOf = RegisterTiledGemm<ExecSpace, Scalar, Layout, Variant>;
  template <int TM, int TN, Schedule S>
  using Kernel = KernelOf<RegisterTiledVariant<TM, TN, S>>;

  static constexpr bool kCpu = runs_on_cpu<ExecSpace>();
  /// The CPU schedule: BLIS's loops around a micro-kernel of the CPU's thread tile.
  using CpuSchedule = cpu::Launch<ExecSpace, Scalar, Layout>;
  /// The CPU's own thread tiles, rows of vector registers (host_vector.hpp: 8x24 and 12x32 with
  /// AVX-512, 6x8 and 6x16 with AVX2, in double and float).
  static constexpr int kCpuRowsDouble = kCpuTileRows<double>, kCpuColsDouble = kCpuTileCols<double>;
  static constexpr int kCpuRowsFloat = kCpuTileRows<float>, kCpuColsFloat = kCpuTileCols<float>;
  static std::string cpu_thread_tiles() {
    return std::to_string(kCpuRowsDouble) + "x" + std::to_string(kCpuColsDouble) + ", " +
           std::to_string(kCpuRowsFloat) + "x" + std::to_string(kCpuColsFloat);
  }
  /// Calls f(kernel) with the kernel type of the launch's thread tile and schedule; throws
  /// LaunchError for a thread tile that is not compiled in.
  template <Schedule S, class F>
  static void with_schedule(const Tiling& t, F&& f) {
    if (t.tm == 4 && t.tn == 4) {
      f(Kernel<4, 4, S>{});
    } else if (t.tm == 4 && t.tn == 8) {
      f(Kernel<4, 8, S>{});
    } else if (t.tm == 8 && t.tn == 8) {
      f(Kernel<8, 8, S>{});
    } else if (t.tm == 8 && t.tn == 16) {
      f(Kernel<8, 16, S>{});
    } else if (kCpu && t.tm == kCpuRowsDouble && t.tn == kCpuColsDouble) {
      if constexpr (kCpu) f(Kernel<kCpuRowsDouble, kCpuColsDouble, S>{});
    } else if (kCpu && t.tm == kCpuRowsFloat && t.tn == kCpuColsFloat) {
      if constexpr (kCpu) f(Kernel<kCpuRowsFloat, kCpuColsFloat, S>{});
    } else {
      throw LaunchError(LaunchLimit::Tile,
                        "tile " + t.to_string() +
                            ": the register-tiled kernel has thread tiles 4x4, 4x8, 8x8, "
                            "8x16" +
                            (kCpu ? ", " + cpu_thread_tiles()
                                  : std::string(" (and on CPUs rows of vector "
                                                "registers)")));
    }
  }
  /// The tiles a GPU build compiles in, each with its team tile fixed: the defaults and their
  /// neighbours in inputs/tune-register-tiled.yaml.
  using CompiledTiles =
      TypeList<RegisterTiledVariant<8, 8, Schedule::pipelined, TileShape<128, 128, 16>>,
               RegisterTiledVariant<8, 8, Schedule::pipelined, TileShape<128, 128, 8>>,
               RegisterTiledVariant<8, 8, Schedule::pipelined, TileShape<128, 64, 8>>,
               RegisterTiledVariant<8, 8, Schedule::pipelined, TileShape<64, 128, 8>>,
               RegisterTiledVariant<8, 8, Schedule::pipelined, TileShape<64, 64, 8>>,
               RegisterTiledVariant<4, 8, Schedule::pipelined, TileShape<64, 128, 8>>,
               RegisterTiledVariant<4, 4, Schedule::pipelined, TileShape<64, 64, 16>>,
               RegisterTiledVariant<4, 4, Schedule::pipelined, TileShape<32, 32, 8>>>;
  /// Calls f(kernel) with the kernel compiled for tile t when t is one of CompiledTiles and its
  /// offsets fit the operands' leading dimension `leading` (offsets_fit; 0 while planning, where
  /// every form of a tile takes the same launch); returns whether.
  template <class F>
  static bool with_fixed_tile(const Tiling& t, bool ops_nn, bool whole_k, bool pairs, int leading,
                              F&& f) {
    if constexpr (kCpu) {
      return false;
    } else {
      return any_of_types(CompiledTiles{}, [&](auto variant) {
        using V = decltype(variant);
        if (!(t == KernelOf<V>::fixed_tile()) || !KernelOf<V>::Shares::offsets_fit(leading))
          return false;
        with_flags<V>(ops_nn, whole_k, pairs, f);
        return true;
      });
    }
  }
  /// The form of compiled-in tile V for what the launch knows of its operands, where that form is
  /// compiled: op NN (`ops_nn`) in LayoutRight alone; K not split (`whole_k`); shares read in
  /// pairs (`pairs`: pairs_fit) where the tile has shares of whole pairs (double's tiles). A flag
  /// without a form of its own leaves the kernel as it is. (Other ops, and LayoutLeft, read the
  /// ops at run time: compiled for them, float 128x128x16/8x8 spills at its 128 registers.)
  static constexpr bool kCompiledOps = std::is_same_v<Layout, Kokkos::LayoutRight>;
  template <class V, bool kOpsNN, bool kWholeK, bool kPairs>
  using Form = KernelOf<
      RegisterTiledVariant<V::tm, V::tn, V::schedule, typename V::shape, kOpsNN && kCompiledOps,
                           kWholeK, kPairs && KernelOf<V>::Shares::kPairsFit>>;
  template <class V, class F>
  static void with_flags(bool ops_nn, bool whole_k, bool pairs, F&& f) {
    switch (4 * ops_nn + 2 * whole_k + pairs) {
      case 0:
        return f(Form<V, false, false, false>{});
      case 1:
        return f(Form<V, false, false, true>{});
      case 2:
        return f(Form<V, false, true, false>{});
      case 3:
        return f(Form<V, false, true, true>{});
      case 4:
        return f(Form<V, true, false, false>{});
      case 5:
        return f(Form<V, true, false, true>{});
      case 6:
        return f(Form<V, true, true, false>{});
      default:
        return f(Form<V, true, true, true>{});
    }
  }
  /// Calls f(kernel) with the kernel a launch runs: with a thread per thread tile, the tile's own
  /// kernel if it is compiled in (with_fixed_tile), else the pipelined schedule with its tile read
  /// at run time if each thread can stage its share of the panels in registers (shares_fit); the
  /// shared schedule otherwise.
  template <class F>
  static void with_kernel(const LaunchConfig& cfg, bool ops_nn, bool pairs, int leading, F&& f) {
    const Tiling& t = cfg.tile;
    if (cfg.team_size == (t.bm / t.tm) * (t.bn / t.tn)) {
      if (with_fixed_tile(t, ops_nn, cfg.split_k == 1, pairs, leading, f)) return;
      if (Kernel<4, 4, Schedule::pipelined>::Gpu::shares_fit(t.bm, t.bn, t.bk, cfg.team_size)) {
        return with_schedule<Schedule::pipelined>(t, f);
      }
    }
    with_schedule<Schedule::shared>(t, f);
  }

  /// Processors that each want a team: CPU threads; GPU multiprocessors (2048 threads of Kokkos'
  /// concurrency each).
  static std::int64_t processors() {
    return kCpu ? ExecSpace().concurrency() : ExecSpace().concurrency() / 2048;
  }
  static std::int64_t tiles_of(const Tiling& t, const Extents& e) {
    return tilemm::tiles_of(t, e.m, e.n);
  }
  /// Teams of tile t that run at once: a team a CPU thread; on a GPU, as many as the compiler is
  /// asked to fit on a multiprocessor (RegisterTiledGemm::kMinTeams).
  static std::int64_t team_slots(const Tiling& t) {
    if (kCpu) return processors();
    const int accumulators = t.tm * t.tn * int(sizeof(Scalar) / 4);
    return processors() * Kernel<4, 4, Schedule::pipelined>::teams_per_multiprocessor(
                              accumulators, (t.bm / t.tm) * (t.bn / t.tn));
  }
  /// K is split by default into at most K / kMinSplitDepth ranges: a range's partial tiles cost a
  /// store and a load of each element against depth multiply-adds, and at n = 512 the GPU's
  /// small tiles are faster than 64x128 tiles in two ranges.
  static constexpr std::int64_t kMinSplitDepth = 512;

  /// The default tile's candidates on a GPU, largest first, per precision: the fastest tiles of
  /// the sweeps that perf/README.md reports, tiles compiled in (with_fixed_tile), a thread per
  /// thread tile. In double, 128x128x8/8x8 runs one team of 256 threads a multiprocessor, which
  /// loads its first panels and stores its tile of C alone, and 64x128x8/8x8 two, which overlap
  /// those: the first is the faster from K = 1024 on. (CPUs run the CPU schedule's.)
  static std::vector<Tiling> default_candidates(const Extents& e) {
    if (sizeof(Scalar) == 4) return {{128, 128, 16, 8, 8}, {64, 64, 16, 4, 4}, {32, 32, 8, 4, 4}};
    if (e.k >= 1024) {
      return {{128, 128, 8, 8, 8}, {64, 128, 8, 8, 8}, {64, 64, 16, 4, 4}, {32, 32, 8, 4, 4}};
    }
    return {{64, 128, 8, 8, 8}, {64, 64, 16, 4, 4}, {32, 32, 8, 4, 4}};
  }
  /// The default tile: on a CPU the CPU schedule's (cpu/launch.hpp) for a team of one thread, with
  /// the caches blocking assumes. On a GPU the largest of the candidates that still gives every
  /// processor a tile of C. When only the smallest does, and K is long enough to split, the largest
  /// of the split candidates that covers C with at most a quarter of its area outside, its teams
  /// made by splitting K (default_split): the smallest tiles have the fewest multiply-adds per
  /// load. No deeper than K rounded up to 8.
  static Tiling default_tile(const Extents& e) {
    if constexpr (kCpu) return CpuSchedule::default_tile(e, CpuSchedule::blocks({}), 1);
    const std::vector<Tiling> candidates = default_candidates(e);
    Tiling chosen = candidates.back();
    for (const Tiling& t : candidates) {
      if (tiles_of(t, e) >= processors()) {
        chosen = t;
        break;
      }
    }
    // A split K's tiles: 8x8 thread tiles, in C's shape when it has 64 rows or columns.
    const std::vector<Tiling> split_candidates = {
        candidates.front(), {64, 128, 8, 8, 8}, {128, 64, 8, 8, 8}};
    if (chosen == candidates.back() && e.k >= 2 * kMinSplitDepth) {
      for (const Tiling& t : split_candidates) {
        if (padding(t, e) <= 1.25 && default_split(t, e).ranges > 1) {
          chosen = t;
          break;
        }
      }
    }
    // Panels deeper than K would multiply zeros: with K = 64, a 256-deep panel is 3/4 padding.
    if (e.k > 0) chosen.bk = static_cast<int>(std::min<std::int64_t>(chosen.bk, (e.k + 7) / 8 * 8));
    return chosen;
  }

  /// Multiply-adds a processor could do in the time the machine moves one scalar of a partial tile
  /// to or from memory, summed over processors: on the H200 in double, 12e12 multiply-adds a second
  /// (24 TFLOP/s) over 0.53e12 doubles (4264 GB/s) is 23, and 32 leaves a margin.
  static constexpr std::int64_t kPartialCost = 32;

  /// A split of K (epilogue/split_k.hpp).
  using Split = KSplit;
  /// The default split of K for tile t, at most K / kMinSplitDepth ranges. When its tiles leave
  /// processors without a team: every tile, in as many ranges as fill the teams that run at once
  /// (team_slots) in one wave (64x4096x4096 in double: 32 tiles of 64x128 in 8 ranges, 256 teams
  /// for 132 multiprocessors of two). Otherwise the split that the waves of teams finish soonest,
  /// with the partial tiles written and read (split_time): a last wave that leaves processors
  /// idle is worth splitting when K is deep. Either every tile is split (1536 x 1536 x 16384 in
  /// double: 144 tiles for 132 multiprocessors, a second wave of 12), or only the tiles of that
  /// last wave, after whole waves of whole tiles (8192^3 in double: 4096 tiles, 31 waves of 132
  /// and 4 tiles more).
  static Split default_split(const Tiling& t, const Extents& e) {
    const std::int64_t tiles = tiles_of(t, e), most = e.k / kMinSplitDepth;
    if (tiles == 0 || most <= 1) return {};
    const std::int64_t slots = team_slots(t);
    if (tiles < processors()) {
      return {int(std::max<std::int64_t>(1, std::min(slots / tiles, most))), tiles};
    }
    // (Tiles that fill no whole wave are all a last wave: only splitting every tile splits them.)
    const std::int64_t last_wave = tiles > slots ? tiles % slots : 0;
    Split all{1, tiles}, tail{1, last_wave};
    // (More ranges than teams run at once cannot shorten a wave further.)
    for (int requested = 2; requested <= std::min(most, slots); ++requested) {
      if (split_time(t, e, {requested, tiles}) < split_time(t, e, all)) all.ranges = requested;
      if (last_wave > 0 && split_time(t, e, {requested, last_wave}) < split_time(t, e, tail)) {
        tail.ranges = requested;
      }
    }
    // A split must promise a twentieth less time than none: the count leaves out the second pass's
    // launch and what the split kernels lose. Split only in its last wave, most of the work runs
    // in the whole kernels, and a promise of 1.5% less time will do.
    const double none = split_time(t, e, {});
    const bool all_pays = all.ranges > 1 && 20 * split_time(t, e, all) <= 19 * none;
    const bool tail_pays = tail.ranges > 1 && 200 * split_time(t, e, tail) <= 197 * none;
    if (tail_pays && (!all_pays || split_time(t, e, tail) <= split_time(t, e, all))) return tail;
    return all_pays ? all : Split{};
  }
  /// The time a split predicts, in multiply-adds of one team: the waves of teams (team_slots at
  /// once) of the whole tiles times a team's multiply-adds, then those of the split tiles; and,
  /// split, the partial tiles that teams write and the sum reads back, and C, at kPartialCost
  /// each across the processors. (In floating point: a shape far past any memory, refused later
  /// by the plan's memory check, passes 2^63 multiply-adds.)
  static double split_time(const Tiling& t, const Extents& e, const Split& split) {
    const std::int64_t slots = team_slots(t), tiles = tiles_of(t, e);
    const int ranges = split.tiles > 0 ? split_count(e.k, t.bk, split.ranges) : 1;
    const std::int64_t split_tiles = ranges > 1 ? split.tiles : 0, whole = tiles - split_tiles;
    const double tile = double(t.bm) * t.bn, blocks = double(ceil_div(e.k, t.bk));
    const double depth = double(ceil_div(ceil_div(e.k, t.bk), ranges)) * t.bk;
    const double whole_waves = double((whole + slots - 1) / slots);
    const double split_waves = double((split_tiles * ranges + slots - 1) / slots);
    // C's elements in the split tiles: all of C when every tile is split.
    const double moved = ranges > 1 ? (2.0 * ranges + 1) * double(e.m) * double(e.n) *
                                          double(split_tiles) / double(tiles)
                                    : 0.0;
    return whole_waves * blocks * t.bk * tile + split_waves * depth * tile +
           moved * kPartialCost / double(slots);
  }
  static LaunchConfig plan(const LaunchRequest& request, const Extents& extents) {
    if constexpr (kCpu) {
      if (!request.tile || CpuSchedule::runs(*request.tile))
        return CpuSchedule::plan(request, extents);
    }
    LaunchConfig cfg;
    cfg.tile = request.tile.value_or(default_tile(extents));
    const Tiling& t = cfg.tile;
    if (!t.has_thread_tile()) {
      throw LaunchError(LaunchLimit::Tile,
                        "tile " + t.to_string() +
                            ": the register-tiled kernel takes BMxBNxBK/TMxTN, such as " +
                            default_tile(extents).to_string());
    }
    // The spec's split, none for a tile it names without one, else the default
    // (epilogue/split_k.hpp).
    plan_split(request, extents, cfg, [&] { return default_split(t, extents); });
    const int thread_tiles = (t.bm / t.tm) * (t.bn / t.tn);
    cfg.vector_length = 1;
    cfg.team_size = request.team_size ? request.team_size : (kCpu ? 1 : thread_tiles);
    if (thread_tiles % cfg.team_size != 0) {
      throw LaunchError(LaunchLimit::TeamSize, "team size " + std::to_string(cfg.team_size) +
                                                   " does not divide the " +
                                                   std::to_string(thread_tiles) +
                                                   " thread tiles of tile " + t.to_string());
    }
    with_kernel(cfg, false, false, 0, [&](auto kernel) {  // any operands: the same launch
      using Launched = decltype(kernel);
      cfg.scratch_bytes = Launched::scratch_bytes(t.bm, t.bn, t.bk);
      // A CPU's caches serve large panels as well as its level 0 would; a GPU's level 1 is main
      // memory, so there the panels must fit level 0.
      const bool fits_level0 =
          cfg.scratch_bytes <= std::size_t(Launched::Policy::scratch_size_max(0));
      cfg.scratch_level = (!fits_level0 && kCpu) ? 1 : 0;
      check_team_launch(kernel, cfg);
    });
    if (cfg.split_k > 1 && cfg.split_tiles < tiles_of(t, extents)) {  // the whole tiles' too
      const LaunchConfig whole = whole_k(cfg);
      with_kernel(whole, false, false, 0, [&](auto kernel) { check_team_launch(kernel, whole); });
    }
    return cfg;
  }

  /// Whether every pair of neighbours a share reads (RegisterTiledGemm::kPairs) lies inside op(X)
  /// and on 16 bytes: pairs start at even indices along a line of X's memory (M, N or K), so each
  /// extent must be even, and each line on 16 bytes (runs_aligned).
  static bool pairs_fit(const Operands& g) {
    return g.m() % 2 == 0 && g.n() % 2 == 0 && g.k() % 2 == 0 && g.a.runs_aligned(2) &&
           g.b.runs_aligned(2);
  }

  /// Runs tile_count tiles of C from tile_begin in the tile order (tile_of) with kernel type
  /// Kernel, K split as cfg says. `partials`: cfg.partial_elements scalars of the backend's memory,
  /// for a split K.
  template <class Kernel>
  static void run_kernel(const Operands& g, const LaunchConfig& cfg, Scalar* partials,
                         int tile_begin, int tile_count) {
    const Tiling& t = cfg.tile;
    Kernel kernel{g,
                  t.bm,
                  t.bn,
                  t.bk,
                  ceil_div(g.m(), t.bm),
                  ceil_div(g.n(), t.bn),
                  cfg.scratch_level,
                  g.a.runs_aligned(4),
                  g.b.runs_aligned(4),
                  cfg.split_k,
                  split_length(g.k(), t.bk, cfg.split_k),
                  partials,
                  tile_begin,
                  tile_count};
    typename Kernel::Policy policy(tile_count * cfg.split_k, cfg.team_size, cfg.vector_length);
    Kokkos::parallel_for(
        "tilemm::register_tiled",
        policy.set_scratch_size(cfg.scratch_level, Kokkos::PerTeam(cfg.scratch_bytes)), kernel);
    if (cfg.split_k > 1) kernel.sum_splits();
  }
  /// The tiles before the split ones run whole K in a launch of their own (kernels compiled for
  /// that), then the split ones.
  static void run(const Operands& g, const LaunchConfig& cfg, Scalar* partials) {
    if constexpr (kCpu) {
      if (CpuSchedule::runs(cfg.tile)) return CpuSchedule::run(g, cfg, partials);
    }
    const bool ops_nn = !g.a.transposed && !g.b.transposed, pairs = pairs_fit(g);
    const int leading = std::max(g.a.leading(), g.b.leading());
    for_each_launch(cfg, tilemm::tiles_of(cfg.tile, g.m(), g.n()), partials,
                    [&](const LaunchConfig& launch, Scalar* into, int begin, int count) {
                      with_kernel(launch, ops_nn, pairs, leading, [&](auto kernel) {
                        run_kernel<decltype(kernel)>(g, launch, into, begin, count);
                      });
                    });
  }
};

}  // namespace tilemm::kernels
