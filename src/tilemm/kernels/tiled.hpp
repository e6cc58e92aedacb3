// tiled: the classic shared-memory GEMM, with a Kokkos team and its level-0 scratch.
//
//   each team owns a BM x BN tile of C:
//     Cs = 0
//     for k0 = 0, BK, 2 BK, ... < K:
//       As = op(A)[tile rows, k0 : k0+BK]      cooperative load, zero outside the matrix
//       Bs = op(B)[k0 : k0+BK, tile cols]
//       team_barrier                           (tiles complete before anyone reads them)
//       Cs += As * Bs                          each thread updates its own elements of Cs
//       team_barrier                           (everyone done before the tiles are overwritten)
//     C[tile] = alpha * Cs + beta * C[tile]     elements outside the matrix are skipped
//
// Each element loaded into scratch serves BM (or BN) multiply-adds, but every multiply-add still
// reads two operands from scratch: the register-tiled kernel removes that limit.
#pragma once

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/team_launch.hpp"

namespace tilemm::kernels {

template <class ExecSpace, class Scalar, class Layout>
struct TiledGemm {
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Tile = Kokkos::View<Scalar**, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space,
                            Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Operands g;
  int BM = 0, BN = 0, BK = 0;
  int tiles_n = 1;  // tiles across the columns of C

  static std::size_t scratch_bytes(const Tiling& t) {
    return Tile::shmem_size(t.bm, t.bk) + Tile::shmem_size(t.bk, t.bn) +
           Tile::shmem_size(t.bm, t.bn);
  }

  /// Default: on a GPU, 16x16 tiles with one thread per element of the C tile (16 lanes of 16
  /// threads); on CPU cores, one thread per team and 32x32 tiles, which fit the 32 KB of level-0
  /// scratch that Kokkos' host backends offer.
  static LaunchConfig plan(const LaunchRequest& request) {
    LaunchConfig cfg;
    cfg.tile =
        request.tile.value_or(runs_on_cpu<ExecSpace>() ? Tiling{32, 32, 32} : Tiling{16, 16, 16});
    if (cfg.tile.has_thread_tile()) {
      throw LaunchError(LaunchLimit::Tile,
                        "tile " + cfg.tile.to_string() +
                            ": the tiled kernel takes BMxBNxBK, without a thread tile");
    }
    if (runs_on_cpu<ExecSpace>()) {
      cfg.vector_length = 1;
      cfg.team_size = request.team_size ? request.team_size : 1;
    } else {
      cfg.vector_length = floor_pow2(std::min(cfg.tile.bn, Policy::vector_length_max()));
      cfg.team_size = request.team_size ? request.team_size : cfg.tile.bm;
    }
    cfg.scratch_bytes = scratch_bytes(cfg.tile);
    check_team_launch(TiledGemm{}, cfg);
    return cfg;
  }

  static void run(const Operands& g, const LaunchConfig& cfg) {
    TiledGemm kernel{g, cfg.tile.bm, cfg.tile.bn, cfg.tile.bk, ceil_div(g.n(), cfg.tile.bn)};
    const int tiles_m = ceil_div(g.m(), cfg.tile.bm);
    Policy policy(tiles_m * kernel.tiles_n, cfg.team_size, cfg.vector_length);
    Kokkos::parallel_for("tilemm::tiled",
                         policy.set_scratch_size(0, Kokkos::PerTeam(cfg.scratch_bytes)), kernel);
  }

  /// f(r, c) for every element of a rows x cols tile, split over the team's threads (rows) and
  /// vector lanes (columns). The split depends only on the team and the extents, so each element
  /// goes to the same thread every time: that thread alone owns it in Cs, with no race.
  template <class F>
  KOKKOS_INLINE_FUNCTION static void for_each_element(const Member& team, int rows, int cols,
                                                      const F& f) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const int r) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, cols), [&](const int c) { f(r, c); });
    });
  }

  /// tile = op(X)[row0 :, col0 :], zero where that leaves the matrix. The whole team shares the
  /// elements in the order of X's memory, so that neighbouring lanes read neighbouring addresses.
  template <class Op>
  KOKKOS_INLINE_FUNCTION static void load_tile(const Member& team, const Tile& tile, const Op& x,
                                               int row0, int col0) {
    const int rows = static_cast<int>(tile.extent(0)), cols = static_cast<int>(tile.extent(1));
    const bool along_cols = x.contiguous_along_cols();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * cols), [&](const int e) {
      const int r = along_cols ? e / cols : e % rows;
      const int c = along_cols ? e % cols : e / rows;
      const int i = row0 + r, j = col0 + c;
      tile(r, c) = (i < x.rows() && j < x.cols()) ? x(i, j) : Scalar(0);
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int row0 = (team.league_rank() / tiles_n) * BM;
    const int col0 = (team.league_rank() % tiles_n) * BN;
    const int M = g.m(), N = g.n(), K = g.k();
    Tile As(team.team_scratch(0), BM, BK);
    Tile Bs(team.team_scratch(0), BK, BN);
    Tile Cs(team.team_scratch(0), BM, BN);

    for_each_element(team, BM, BN, [&](int r, int c) { Cs(r, c) = 0; });
    for (int k0 = 0; k0 < K; k0 += BK) {
      load_tile(team, As, g.a, row0, k0);
      load_tile(team, Bs, g.b, k0, col0);
      team.team_barrier();
      for_each_element(team, BM, BN, [&](int r, int c) {
        Scalar acc = Cs(r, c);
        for (int l = 0; l < BK; ++l) acc += As(r, l) * Bs(l, c);
        Cs(r, c) = acc;
      });
      team.team_barrier();
    }
    for_each_element(team, BM, BN, [&](int r, int c) {
      const int i = row0 + r, j = col0 + c;
      if (i < M && j < N) scale_into(g.c(i, j), Cs(r, c), g.alpha, g.beta);
    });
  }
};

}  // namespace tilemm::kernels
