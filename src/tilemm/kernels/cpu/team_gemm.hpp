// The CPU schedule as one Kokkos TeamPolicy kernel: BLIS's loops around the micro-kernel
// (blocking.hpp), a team a tile of C, its threads sharing the tile's packed B~ in team scratch.
//
//   team: a tile of C, bm x bn (in the schedule's orientation), and a range [k_begin, k_end) of K
//     for p0 = k_begin, k_begin + kc, ...:
//       B~ = B[p0 : p0+kc, tile cols]          each thread packs its share of B~'s micro-panels
//       team_barrier
//       each thread, at its place in the team's grid (blocking.hpp, thread_grid):
//         A~ = A[my rows, p0 : p0+kc]          its own A~, in its part of the team's scratch
//         for each block of nb of my columns:  (kc x nb of B~: in L2)
//           for each micro-panel of A~:        (MR x kc: in L1 while B~'s stream past it)
//             for each micro-panel of the block:
//               C[MR x NR] = alpha A~ B~ + (p0 == k_begin ? beta : 1) C    the micro-kernel
//       team_barrier                           before B~ is packed again
//
// C itself holds the sums between K blocks: the first block scales C by beta (not reading it
// where beta is 0), each block adds alpha times its products. A split K (epilogue/split_k.hpp)
// stores each range's products unscaled into its partial tile instead, and the sum pass scales
// them.
//
// Orientation: the micro-kernel keeps rows of C in vector registers, so it wants C's lines as
// rows. In LayoutLeft the schedule computes C^T = op(B)^T op(A)^T, whose lines are rows: the same
// memory through swapped strides (packing.hpp), with the tile's rows and columns swapped. A tile
// is reported in C's own rows and columns (bm x bn), its thread tile as MR x NR in either layout.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/cpu/blocking.hpp"
#include "tilemm/kernels/cpu/micro_kernel.hpp"
#include "tilemm/kernels/cpu/packing.hpp"
#include "tilemm/kernels/epilogue/split_k.hpp"
#include "tilemm/kernels/gemm_operands.hpp"

namespace tilemm::kernels::cpu {

template <class ExecSpace, class Scalar, class Layout, int MR, int NR>
struct TeamGemm {
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  static constexpr bool kLeft = std::is_same_v<Layout, Kokkos::LayoutLeft>;

  Operands g;
  // The problem in the schedule's orientation: C_o = A_o B_o, m_o x n_o, its rows C's lines.
  Strided<Scalar> a_o, b_o;
  Scalar* c_o = nullptr;
  std::ptrdiff_t ldc = 0;
  int m_o = 0, n_o = 0, k = 0;
  TileShape tile;        // oriented
  int block_panels = 1;  // B~'s micro-panels a thread's loops keep in L2 (nb / NR)
  ThreadGrid grid;
  std::size_t b_bytes = 0, a_bytes = 0, scratch = 0;  // B~, each thread's A~, all
  int tiles_n_o = 1;
  int splits = 1, k_split = 0;  // K in `splits` ranges of k_split (epilogue/split_k.hpp)
  Scalar* partials = nullptr;
  int tile_begin = 0, tile_count = 0;

  /// op(X) through its strides.
  static Strided<Scalar> strided(const typename Operands::OpMatrix& x) {
    const Strided<Scalar> s{x.x.data(), std::ptrdiff_t(x.x.stride(0)),
                            std::ptrdiff_t(x.x.stride(1))};
    return x.transposed ? s.transposed() : s;
  }
  /// The tile bm x bn of C in the schedule's orientation.
  static TileShape oriented(const Tiling& t) {
    return kLeft ? TileShape{t.bn, t.bm, t.bk} : TileShape{t.bm, t.bn, t.bk};
  }

  TeamGemm() = default;
  TeamGemm(const Operands& ops, const Tiling& t, int l2_columns, int team_size, int split_k,
           Scalar* partial_tiles, int begin, int count)
      : g(ops),
        tile(oriented(t)),
        block_panels(std::max(1, l2_columns / NR)),
        splits(split_k),
        partials(partial_tiles),
        tile_begin(begin),
        tile_count(count) {
    const Strided<Scalar> a = strided(g.a), b = strided(g.b);
    a_o = kLeft ? b.transposed() : a;
    b_o = kLeft ? a.transposed() : b;
    c_o = g.c.data();
    ldc = std::ptrdiff_t(kLeft ? g.c.stride(1) : g.c.stride(0));
    m_o = kLeft ? g.n() : g.m();
    n_o = kLeft ? g.m() : g.n();
    k = g.k();
    const Blocks blocks{MR, NR, tile.kc, 0, 0};
    grid = grid_of(tile, blocks, team_size);
    b_bytes = b_panel_bytes(tile, blocks, sizeof(Scalar));
    a_bytes = a_panel_bytes(tile, blocks, team_size, sizeof(Scalar));
    scratch = scratch_bytes(tile, blocks, team_size, sizeof(Scalar));
    tiles_n_o = micro_count(n_o, tile.bn);
    k_split = split_length(k, tile.kc, splits);
  }

  /// Row and column of the tile (in C's own terms) that team `rank` computes: in the schedule's
  /// orientation, along its rows of tiles. (The sum pass of a split K finds its tiles by it.)
  KOKKOS_INLINE_FUNCTION void tile_of(int rank, int& tile_m, int& tile_n) const {
    const int row = rank / tiles_n_o, col = rank % tiles_n_o;
    tile_m = kLeft ? col : row;
    tile_n = kLeft ? row : col;
  }
  /// C = alpha * (the sum of the partials in range order) + beta * C over the launch's tiles.
  void sum_splits() const {
    const int bm = kLeft ? tile.bn : tile.bm, bn = kLeft ? tile.bm : tile.bn;
    kernels::sum_splits<ExecSpace>("tilemm::register_tiled::cpu::sum_splits", g, partials, bm, bn,
                                   splits, tile_begin, tile_count, *this);
  }

  /// Where the micro-kernel's block at (row, col) of the oriented tile goes: into C, or with K
  /// split into the partial tile of this range (a tile in C's layout: row-major bm x bn of the
  /// oriented tile, epilogue/split_k.hpp's partial_offset), unscaled.
  MicroTarget<Scalar> target(int split, int local, int row0, int col0, int row, int col, int rows,
                             int cols, bool first) const {
    if (splits > 1) {
      const std::size_t index = std::size_t(split) * tile_count + local;
      Scalar* p = partials + (index * tile.bm + row) * tile.bn + col;
      return {p, tile.bn, rows, cols, Scalar(1), first ? Scalar(0) : Scalar(1)};
    }
    return {c_o + (row0 + row) * ldc + col0 + col,
            ldc,
            rows,
            cols,
            g.alpha,
            first ? g.beta : Scalar(1)};
  }

  void operator()(const Member& team) const {
    const int split = splits > 1 ? team.league_rank() / tile_count : 0;
    const int local = team.league_rank() - split * tile_count;
    int tile_m, tile_n;
    tile_of(tile_begin + local, tile_m, tile_n);
    const int row0 = (kLeft ? tile_n : tile_m) * tile.bm,
              col0 = (kLeft ? tile_m : tile_n) * tile.bn;
    const int rows = std::min(tile.bm, m_o - row0), cols = std::min(tile.bn, n_o - col0);
    const int k_begin = split * k_split;
    const int k_end = splits > 1 ? std::min(k, k_begin + k_split) : k;

    char* raw = static_cast<char*>(team.team_scratch(1).get_shmem(scratch));
    raw += (kAlign - reinterpret_cast<std::uintptr_t>(raw) % kAlign) % kAlign;
    Scalar* b_panels = reinterpret_cast<Scalar*>(raw);
    Scalar* a_panels = reinterpret_cast<Scalar*>(raw + b_bytes + team.team_rank() * a_bytes);

    // This thread's micro-rows [ir0, ir1) and micro-columns [jr0, jr1) of the tile, and its share
    // [q0, q1) of B~'s micro-panels to pack.
    const int rank = team.team_rank(), size = team.team_size();
    const int micro_rows = micro_count(rows, MR), micro_cols = micro_count(cols, NR);
    const int per_row = micro_count(micro_rows, grid.rows);
    const int per_col = micro_count(micro_cols, grid.cols);
    const int ir0 = (rank / grid.cols) * per_row, jr0 = (rank % grid.cols) * per_col;
    const int ir1 = std::min(ir0 + per_row, micro_rows), jr1 = std::min(jr0 + per_col, micro_cols);
    const int q0 = int(std::int64_t(micro_cols) * rank / size);
    const int q1 = int(std::int64_t(micro_cols) * (rank + 1) / size);
    const int my_rows = ir1 > ir0 ? std::min(rows, ir1 * MR) - ir0 * MR : 0;

    for (int p0 = k_begin; p0 < k_end; p0 += tile.kc) {
      const int depth = std::min(tile.kc, k_end - p0);
      pack_b<NR>(b_o.from(p0, col0), cols, depth, q0, q1 - q0, b_panels);
      team.team_barrier();
      if (my_rows > 0 && jr1 > jr0) {
        pack_a<MR>(a_o.from(row0 + ir0 * MR, p0), my_rows, depth, 0, ir1 - ir0, a_panels);
        for (int block = jr0; block < jr1; block += block_panels) {
          const int block_end = std::min(jr1, block + block_panels);
          for (int ir = ir0; ir < ir1; ++ir) {
            const Scalar* a = a_panels + std::ptrdiff_t(ir - ir0) * MR * depth;
            const int row = ir * MR, height = std::min(MR, rows - row);
            for (int jr = block; jr < block_end; ++jr) {
              const Scalar* b = b_panels + std::ptrdiff_t(jr) * NR * depth;
              const int col = jr * NR, width = std::min(NR, cols - col);
              micro_kernel<MR, NR>(
                  depth, a, b,
                  target(split, local, row0, col0, row, col, height, width, p0 == k_begin));
            }
          }
        }
      }
      team.team_barrier();
    }
  }
};

}  // namespace tilemm::kernels::cpu
