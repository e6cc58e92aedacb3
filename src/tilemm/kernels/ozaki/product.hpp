// ozaki, the products: for each modulus p, C_p = A_p * B_p^T mod p, A_p (m x k) and B_p (n x k)
// the int8 residues of the splitting (lines of ld bytes, zeros past k), in int32, with a Kokkos
// team and its level-0 scratch.
//
//   each team owns a BM x BN tile of C_p for one modulus p:
//     Cs = 0                                    int32
//     for k0 = 0, BK, 2 BK, ... < K:
//       As = A_p[tile rows, k0 : k0 + BK]       int8, the part inside the matrix
//       Bs = B_p[tile cols, k0 : k0 + BK]       int8
//       team_barrier
//       Cs += As * Bs^T                         each thread its own elements, int8 x int8 -> int32
//       team_barrier
//       every kReduceEvery of K, and at the end: Cs = Cs mod p
//     C_p[tile] = Cs in [0, p)                  uint8; elements outside the matrix never summed
//
// A product of two residues is at most 128 * 128 = 2^14 in magnitude, so 2^16 of them stay within
// int32 and Cs is reduced that often: exact for any K. This is the portable path, the one the CPU
// backends run; CUDA runs product_mma.hpp's in its place, on the same residues.
#pragma once

#include <cstdint>

#include "tilemm/kernels/ozaki/moduli.hpp"
#include "tilemm/kernels/team_launch.hpp"

namespace tilemm::kernels::ozaki {

/// The int32 sums are reduced modulo p after this many products (at most 2^17 - 1 fit).
constexpr int kReduceEvery = 1 << 16;

template <class ExecSpace>
struct ModularProducts {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Memory = typename ExecSpace::memory_space;
  using Scratch = typename ExecSpace::scratch_memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Residues = Kokkos::View<const std::int8_t*, Memory, Unmanaged>;
  using Products = Kokkos::View<std::uint8_t*, Memory, Unmanaged>;
  using Panel = Kokkos::View<std::int8_t**, Kokkos::LayoutRight, Scratch, Unmanaged>;
  using Sums = Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Scratch, Unmanaged>;

  Residues a, b;  // A_p as a[(p m + i) ld + l], B_p as b[(p n + j) ld + l]
  Products c;     // C_p as c[(p m + i) n + j]
  int M = 0, N = 0, K = 0, ld = 0;
  int moduli[kMaxModuli] = {};
  int BM = 0, BN = 0, BK = 0;
  int tiles_m = 1, tiles_n = 1;

  static std::size_t scratch_bytes(const Tiling& t) {
    return Panel::shmem_size(t.bm, t.bk) + Panel::shmem_size(t.bn, t.bk) +
           Sums::shmem_size(t.bm, t.bn);
  }

  /// On CPU cores, one thread per team and 32 x 32 tiles 64 deep; on a GPU, 16 x 16 tiles with one
  /// thread per element (16 lanes of 16 threads), as the tiled kernel has.
  static LaunchConfig plan() {
    LaunchConfig cfg;
    const bool cpu = runs_on_cpu<ExecSpace>();
    cfg.tile = cpu ? Tiling{32, 32, 64} : Tiling{16, 16, 64};
    cfg.team_size = cpu ? 1 : 16;
    cfg.vector_length = cpu ? 1 : 16;
    cfg.scratch_bytes = scratch_bytes(cfg.tile);
    check_team_launch(ModularProducts{}, cfg);
    return cfg;
  }

  /// C_p = A_p B_p^T mod p for each of g's moduli, with the plan's tile and team.
  static void run(const Residues& a, const Residues& b, const Products& c, int M, int N, int K,
                  int ld, const Garner& g, const LaunchConfig& cfg) {
    const Tiling& t = cfg.tile;
    ModularProducts kernel{
        a, b, c, M, N, K, ld, {}, t.bm, t.bn, t.bk, ceil_div(M, t.bm), ceil_div(N, t.bn)};
    for (int q = 0; q < g.count; ++q) kernel.moduli[q] = g.modulus[q];
    Policy policy(g.count * kernel.tiles_m * kernel.tiles_n, cfg.team_size, cfg.vector_length);
    Kokkos::parallel_for("tilemm::ozaki::products",
                         policy.set_scratch_size(0, Kokkos::PerTeam(cfg.scratch_bytes)), kernel);
  }

  /// panel(r, l) = x[(p lines + row0 + r) ld + k0 + l] for r < rows, l < depth: only what the
  /// products read (the tile's lines inside the matrix, the K block's part inside K).
  KOKKOS_INLINE_FUNCTION void load(const Member& team, const Panel& panel, const Residues& x, int p,
                                   int lines, int row0, int rows, int k0, int depth) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const int r) {
      const std::int64_t line = (std::int64_t(p) * lines + row0 + r) * ld + k0;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, depth),
                           [&](const int l) { panel(r, l) = x(line + l); });
    });
  }

  /// f(r, c) for every element of the tile's rows x cols inside C, each always on the same thread.
  template <class F>
  KOKKOS_INLINE_FUNCTION static void for_each_element(const Member& team, int rows, int cols,
                                                      const F& f) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const int r) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, cols), [&](const int c) { f(r, c); });
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int tiles = tiles_m * tiles_n;
    const int p = team.league_rank() / tiles, tile = team.league_rank() % tiles;
    const int row0 = (tile / tiles_n) * BM, col0 = (tile % tiles_n) * BN;
    const int modulus = moduli[p];
    Panel As(team.team_scratch(0), BM, BK);
    Panel Bs(team.team_scratch(0), BN, BK);
    Sums Cs(team.team_scratch(0), BM, BN);

    // Only the tile's elements inside C are summed: an edge tile of a small C skips the rest.
    const int rows = M - row0 < BM ? M - row0 : BM, cols = N - col0 < BN ? N - col0 : BN;
    for_each_element(team, rows, cols, [&](int r, int c) { Cs(r, c) = 0; });
    for (int k0 = 0; k0 < K; k0 += BK) {
      const int depth = K - k0 < BK ? K - k0 : BK;
      load(team, As, a, p, M, row0, rows, k0, depth);
      load(team, Bs, b, p, N, col0, cols, k0, depth);
      team.team_barrier();
      const bool reduce = (k0 + BK) % kReduceEvery == 0;
      for_each_element(team, rows, cols, [&](int r, int c) {
        std::int32_t acc = Cs(r, c);
        for (int l = 0; l < depth; ++l) acc += std::int32_t(As(r, l)) * std::int32_t(Bs(c, l));
        Cs(r, c) = reduce ? acc % modulus : acc;
      });
      team.team_barrier();
    }
    for_each_element(team, rows, cols, [&](int r, int c) {
      const int rest = Cs(r, c) % modulus;
      c_at(p, row0 + r, col0 + c) = static_cast<std::uint8_t>(rest < 0 ? rest + modulus : rest);
    });
  }

  KOKKOS_INLINE_FUNCTION std::uint8_t& c_at(int p, int i, int j) const {
    return c((std::int64_t(p) * M + i) * N + j);
  }
};

}  // namespace tilemm::kernels::ozaki
