// The CPU schedule as one Kokkos TeamPolicy kernel: BLIS's loops around the micro-kernel
// (blocking.hpp), a team a tile of C, its threads sharing the tile's packed A~ and B~ in team
// scratch.
//
//   team: a tile of C, bm x bn (in the schedule's orientation), and a range [k_begin, k_end) of K
//     for p0 = k_begin, k_begin + kc, ...:
//       A~ = A[tile rows, p0 : p0+kc]          each thread packs its share of A~'s micro-panels
//       B~ = B[p0 : p0+kc, tile cols]          and of B~'s
//       team_barrier
//       each thread, while the K block's counter gives it a unit (a block of nb columns of B~ by
//       kUnitPanels micro-panels of A~, block by block):
//         for each micro-panel of the unit's A~:   (MR x kc: in L1 while B~'s stream past it)
//           for each micro-panel of the block:     (kc x nb of B~: in L2)
//             C[MR x NR] = alpha A~ B~ + (p0 == k_begin ? beta : 1) C    the micro-kernel
//       team_barrier                           before A~ and B~ are packed again
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
  // A~'s micro-panels in a unit of work: enough that taking a unit costs nothing beside it, few
  // enough that a K block has several units for each thread.
  static constexpr int kUnitPanels = 8;
  std::size_t b_bytes = 0, a_bytes = 0, scratch = 0;  // B~, A~, all
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
    b_bytes = b_panel_bytes(tile, blocks, sizeof(Scalar));
    a_bytes = a_panel_bytes(tile, blocks, sizeof(Scalar));
    scratch = scratch_bytes(tile, blocks, sizeof(Scalar));
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
    Scalar* a_panels = reinterpret_cast<Scalar*>(raw + b_bytes);
    // The units of work taken so far in a K block: one counter for the block the team is in, the
    // other set back to zero for the next while no thread can be using it.
    int* taken = reinterpret_cast<int*>(raw + b_bytes + a_bytes);

    // This thread's shares [r0, r1) of A~'s micro-panels and [q0, q1) of B~'s to pack, and the
    // K block's units: blocks of block_panels micro-columns by kUnitPanels micro-rows.
    const int rank = team.team_rank(), size = team.team_size();
    const int micro_rows = micro_count(rows, MR), micro_cols = micro_count(cols, NR);
    const auto share_start = [&](int count, int r) {
      return int(std::int64_t(count) * r / size);
    };
    const int r0 = share_start(micro_rows, rank), r1 = share_start(micro_rows, rank + 1);
    const int q0 = share_start(micro_cols, rank), q1 = share_start(micro_cols, rank + 1);
    const int unit_rows = micro_count(micro_rows, kUnitPanels);
    const int units = unit_rows * micro_count(micro_cols, block_panels);
    if (rank == 0) Kokkos::atomic_exchange(&taken[0], 0);  // the first K block's; see below

    for (int p0 = k_begin, pass = 0; p0 < k_end; p0 += tile.kc, ++pass) {
      const int depth = std::min(tile.kc, k_end - p0);
      pack_a<MR>(a_o.from(row0, p0), rows, depth, r0, r1 - r0, a_panels);
      pack_b<NR>(b_o.from(p0, col0), cols, depth, q0, q1 - q0, b_panels);
      team.team_barrier();
      // Every thread is past the previous K block, and none reaches the next before this one's
      // last barrier: the other counter is free until then.
      if (rank == 0) Kokkos::atomic_exchange(&taken[(pass + 1) % 2], 0);
      int* const counter = &taken[pass % 2];
      for (int unit = Kokkos::atomic_fetch_add(counter, 1); unit < units;
           unit = Kokkos::atomic_fetch_add(counter, 1)) {
        const int block = unit / unit_rows * block_panels;
        const int block_end = std::min(micro_cols, block + block_panels);
        const int ir0 = unit % unit_rows * kUnitPanels;
        const int ir1 = std::min(micro_rows, ir0 + kUnitPanels);
        for (int ir = ir0; ir < ir1; ++ir) {
          const Scalar* a = a_panels + std::ptrdiff_t(ir) * MR * depth;
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
      team.team_barrier();
    }
  }
};

}  // namespace tilemm::kernels::cpu
