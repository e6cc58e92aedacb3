// The CPU schedule's launch (team_gemm.hpp holds the kernel): its blocks from the caches the
// plan read at start-up, its default tile, team and split of K, and the launch itself. The
// register-tiled kernel runs it on CPU backends for its CPU thread tiles (MR x NR: rows of vector
// registers, host_vector.hpp), and tensor-tiled by default on CPU backends.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "tilemm/kernels/cpu/team_gemm.hpp"
#include "tilemm/kernels/host_vector.hpp"
#include "tilemm/kernels/team_launch.hpp"

namespace tilemm::kernels::cpu {

/// What the results' `instruction` says of a run of the CPU schedule.
inline std::string instruction() {
  return kHostVectors ? "cpu fma, " + std::to_string(8 * kHostVectorBytes) + "-bit vectors"
                      : std::string("cpu fma, scalars");
}

template <class ExecSpace, class Scalar, class Layout>
struct Launch {
  static constexpr int MR = kCpuTileRows<Scalar>, NR = kCpuTileCols<Scalar>;
  using Gemm = TeamGemm<ExecSpace, Scalar, Layout, MR, NR>;
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;

  /// Whether thread tile t is the micro-kernel's, which this schedule runs.
  static bool runs(const Tiling& t) { return t.tm == MR && t.tn == NR && t.stages == 0; }
  static Blocks blocks(const CpuCaches& caches) {
    return blocks_for(caches, sizeof(Scalar), MR, NR);
  }
  static int concurrency() { return ExecSpace().concurrency(); }
  /// The most threads a team of this kernel may have.
  static int team_size_max() {
    return typename Gemm::Policy(1, 1).team_size_max(Gemm{}, Kokkos::ParallelForTag());
  }

  /// K is split by default only for a C of fewer micro-tiles than threads and a K of at least
  /// two ranges of kMinSplitDepth: its threads would otherwise wait. Its teams are then of one
  /// thread each, a range of K each.
  static constexpr std::int64_t kMinSplitDepth = 512;
  static bool few_micro_tiles(const Extents& e) {
    const std::int64_t m_o = Gemm::kLeft ? e.n : e.m, n_o = Gemm::kLeft ? e.m : e.n;
    return std::int64_t(micro_count(m_o, MR)) * micro_count(n_o, NR) < concurrency() &&
           e.k >= 2 * kMinSplitDepth;
  }
  /// The default split of K for tile t on teams of `team` threads: where the tiles leave teams
  /// that could run at once without one, every tile in as many ranges as fill them, each at least
  /// kMinSplitDepth deep.
  static KSplit default_split(const Tiling& t, const Extents& e, int team) {
    const std::int64_t tiles = tiles_of(t, e.m, e.n), slots = std::max(1, concurrency() / team);
    const std::int64_t ranges =
        std::min(slots / std::max<std::int64_t>(tiles, 1), e.k / kMinSplitDepth);
    return tiles > 0 && ranges > 1 ? KSplit{int(ranges), tiles} : KSplit{};
  }

  /// The default tile (blocking.hpp, default_tile), in C's rows and columns.
  static Tiling default_tile(const Extents& e, const Blocks& b, int team) {
    const bool left = Gemm::kLeft;
    const std::int64_t teams = std::max(1, concurrency() / team);
    const TileShape t =
        cpu::default_tile(left ? e.n : e.m, left ? e.m : e.n, e.k, b, teams,
                          std::size_t(Gemm::Policy::scratch_size_max(1)), int(sizeof(Scalar)));
    return left ? Tiling{t.bn, t.bm, t.kc, MR, NR} : Tiling{t.bm, t.bn, t.kc, MR, NR};
  }

  static LaunchConfig plan(const LaunchRequest& request, const Extents& e) {
    const Blocks b = blocks(request.caches);
    LaunchConfig cfg;
    cfg.team_size = request.team_size    ? request.team_size
                    : few_micro_tiles(e) ? 1
                                         : std::min(concurrency(), team_size_max());
    cfg.tile = request.tile.value_or(default_tile(e, b, cfg.team_size));
    cfg.vector_length = 1;
    cfg.scratch_level = 1;  // a CPU's caches serve the panels
    cfg.scratch_bytes = scratch_bytes(Gemm::oriented(cfg.tile), b, int(sizeof(Scalar)));
    cfg.instruction = instruction();
    cfg.l2_columns = b.nb;
    // The spec's split, none for a tile it names without one, else the default
    // (epilogue/split_k.hpp).
    plan_split(request, e, cfg, [&] { return default_split(cfg.tile, e, cfg.team_size); });
    check_team_launch(Gemm{}, cfg);
    return cfg;
  }

  /// Runs cfg's launches: the tiles before the split ones whole, then the split ones and their
  /// sum pass (epilogue/split_k.hpp).
  static void run(const Operands& g, const LaunchConfig& cfg, Scalar* partials) {
    for_each_launch(cfg, tiles_of(cfg.tile, g.m(), g.n()), partials,
                    [&](const LaunchConfig& one, Scalar* into, int begin, int count) {
                      const Gemm gemm(g, one.tile, one.l2_columns, one.team_size, one.split_k, into,
                                      begin, count);
                      typename Gemm::Policy policy(count * one.split_k, one.team_size, 1);
                      Kokkos::parallel_for(
                          "tilemm::register_tiled::cpu",
                          policy.set_scratch_size(1, Kokkos::PerTeam(one.scratch_bytes)), gemm);
                      if (one.split_k > 1) gemm.sum_splits();
                    });
  }
};

}  // namespace tilemm::kernels::cpu
