// register-tiled: the outer-product form of GEMM. Each thread multiplies a TM x TN block of C held
// in registers, so that one value read from scratch feeds TM or TN multiply-adds instead of one.
//
//   each team owns a BM x BN tile of C, cut into (BM/TM) x (BN/TN) thread tiles, and a range
//   [k_begin, k_end) of K (all of K unless the launch splits K):
//     Cs = 0                                     the thread tiles' accumulators, in scratch
//     for k0 = k_begin, k_begin + BK, ... < k_end:
//       As = op(A)[tile rows, k0 : k0+BK]^T      cooperative load, transposed, zero outside
//       Bs = op(B)[k0 : k0+BK, tile cols]
//       team_barrier
//       for each of my thread tiles t:
//         acc = Cs[t]
//         for kk < BK:
//           a[TM] = As[kk][rows of t]            a fragment of A into registers
//           b[TN] = Bs[kk][cols of t]            and one of B
//           acc += a (x) b                       the outer product: TM * TN multiply-adds
//         Cs[t] = acc
//       team_barrier
//     C[each of my thread tiles] = alpha * Cs[t] + beta * C    elements outside C skipped
//
// This schedule ("shared": the accumulators wait in scratch between K blocks) runs any team size.
// A CPU core runs it as a team of one thread, as in GotoBLAS: BK is large (128, 256), so that the
// 2 TM TN scratch accesses for Cs are few against the BK TM TN multiply-adds, and the panels live
// in level-1 scratch. Three files transform it:
// - register_tiled/pipeline.hpp: the pipelined schedule that GPU launches run (a thread per thread
//   tile, its accumulators in registers for the whole K loop, the panels double-buffered through
//   registers), and the GPU's 16-byte reads of fragments;
// - register_tiled/shares.hpp: that pipeline's form for the compiled-in double tiles;
// - register_tiled/cpu_rows.hpp: on a CPU, a row of a thread tile held as vector registers.
// team/panel.hpp says where a panel lies in scratch.
//
// Split K (a few tiles of C, a long K; or the tiles of a last wave of teams that would leave most
// processors idle): teams take the launch's tiles of C for each of split_k ranges of K, store acc
// unscaled as a partial tile of their range, and a second pass adds the partials in range order:
// C = alpha * sum + beta * C (epilogue/split_k.hpp). Tiles before the split ones run whole K in a
// launch of their own.
//
// Teams visit the tiles of C in bands of tile-rows, column by column within a band, so that the
// panels of B a band needs are still in cache when its next tile-row reads them
// (team/tile_order.hpp).
//
// The launch (register_tiled/launch.hpp) picks the tile, the team size and the split of K, checks
// them, and picks which compiled kernel runs them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tilemm/kernels/epilogue/split_k.hpp"
#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/register_tiled/cpu_rows.hpp"
#include "tilemm/kernels/register_tiled/pipeline.hpp"
#include "tilemm/kernels/register_tiled/shares.hpp"
#include "tilemm/kernels/team/panel.hpp"
#include "tilemm/kernels/team/tile_order.hpp"
#include "tilemm/kernels/team_launch.hpp"
#include "tilemm/kernels/unroll.hpp"

namespace tilemm::kernels {

/// A team tile BM x BN x BK fixed at compile time, or (all zero) taken from the launch. Fixed, the
/// K block's loop unrolls with constant scratch offsets and each thread's share of a panel is
/// found without divisions: the GPU's default tiles are compiled so.
template <int BM, int BN, int BK>
struct TileShape {
  static constexpr int bm = BM, bn = BN, bk = BK;
  static constexpr bool fixed = BM > 0;
};
using RuntimeShape = TileShape<0, 0, 0>;

/// The schedule above (shared), or the pipelined one of register_tiled/pipeline.hpp.
enum class Schedule { shared, pipelined };

/// The compile-time choices of one register-tiled kernel: its thread tile TM x TN, its schedule,
/// its team tile (fixed, or read at run time), and three forms of the pipelined schedule, compiled
/// for what a launch knows of its operands:
/// - ops_nn: op(A) = A and op(B) = B, so that the panels' layouts are known at compile time and
///   the selects between them leave the K loop (otherwise the ops are read at run time);
/// - whole_k: K is not split, so that no register holds the bounds of a team's range of K;
/// - pairs: a compiled-in double tile reads its shares of the panels two neighbours a load.
template <int TM, int TN, Schedule S, class Shape = RuntimeShape, bool OpsNN = false,
          bool WholeK = false, bool Pairs = false>
struct RegisterTiledVariant {
  static constexpr int tm = TM, tn = TN;
  static constexpr Schedule schedule = S;
  using shape = Shape;
  static constexpr bool ops_nn = OpsNN, whole_k = WholeK, pairs = Pairs;
  using with_ops_nn = RegisterTiledVariant<TM, TN, S, Shape, true, WholeK, Pairs>;
  using with_whole_k = RegisterTiledVariant<TM, TN, S, Shape, OpsNN, true, Pairs>;
  using with_pairs = RegisterTiledVariant<TM, TN, S, Shape, OpsNN, WholeK, true>;
};

template <class ExecSpace, class Scalar, class Layout, class Variant>
struct RegisterTiledGemm {
  static constexpr int TM = Variant::tm, TN = Variant::tn;
  using Shape = typename Variant::shape;
  static constexpr bool kPipelined = Variant::schedule == Schedule::pipelined;
  static constexpr bool kOpsNN = Variant::ops_nn, kWholeK = Variant::whole_k;
  static_assert(kPipelined || !Shape::fixed, "the shared schedule takes its tile at run time");
  static_assert((runs_on_cpu<ExecSpace>() || TM % 4 == 0) && TN % 4 == 0,
                "thread tiles are made of 4 x 4 blocks (on CPUs, 2 x 4)");
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  using OpN = OpView<typename Operands::const_matrix, 0>;
  using Gpu = RegisterTiledGpu<ExecSpace, Scalar, Layout, Variant>;
  using Shares = RegisterTiledShares<ExecSpace, Scalar, Layout, Variant>;
  using Cpu = RegisterTiledCpu<ExecSpace, Scalar, Layout, Variant>;

  /// A fixed tile's team size is known, and so the registers a thread may have: ask the compiler
  /// for two teams a multiprocessor (65536 registers) when the accumulators take at most half of
  /// that budget, so that one team multiplies while the other waits at its barrier.
  static constexpr int kTeam = Shape::fixed ? (Shape::bm / TM) * (Shape::bn / TN) : 0;
  static constexpr int kAccRegisters = TM * TN * int(sizeof(Scalar) / 4);
  static constexpr int teams_per_multiprocessor(int acc_registers, int team) {
    return 2 * acc_registers * 2 * team <= 65536 ? 2 : 1;
  }
  static constexpr int kMinTeams = teams_per_multiprocessor(kAccRegisters, kTeam);
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kTeam, kTeam ? kMinTeams : 0>>;
  using Member = typename Policy::member_type;

  // A GPU thread reads its fragments of As and Bs 16 bytes an instruction; a CPU core a scalar at
  // a time, so that each value of A can go from memory into the instruction that broadcasts it.
  static constexpr bool kOnCpu = runs_on_cpu<ExecSpace>();
  static constexpr bool kStripReads = !kOnCpu;
  // A thread tile's rows and columns come in strips of kStrip neighbours: 16 bytes, the widest
  // load of a GPU thread, so that a double strip is one load (on CPUs, where it is not read as
  // one, 4, or 2 for the thread tiles of 6 rows of targets with 16 vector registers).
  static constexpr int kStrip = kOnCpu ? (TM % 4 == 0 ? 4 : 2) : int(16 / sizeof(Scalar));
  // Scalars added to each scratch row, so that a transposed store spreads over the banks: a strip,
  // which keeps rows aligned for strip reads (4 doubles on a GPU would leave a warp's transposed
  // store of A with 2-way bank conflicts). On CPUs 4 whatever the strip (host_vector.hpp loads
  // need no alignment).
  static constexpr int kPad = kOnCpu ? 4 : kStrip;
  static constexpr int kAlign = 64;  // bytes: the scratch base is rounded up to this
  static_assert(TM % kStrip == 0 && TN % kStrip == 0, "thread tiles are made of strips");

  Operands g;
  int BM = 0, BN = 0, BK = 0;  // the launch's tile; Shape's when it is fixed
  int tiles_m = 1, tiles_n = 1;
  int level = 0;                          // team scratch level
  bool quads_a = false, quads_b = false;  // A's, B's runs of 4 are aligned for Quad loads
  int splits = 1, k_split = 0;  // K in `splits` ranges of k_split (whole K blocks; the last less)
  Scalar* partials = nullptr;   // a partial tile per tile and range (epilogue/split_k.hpp)
  int tile_begin = 0, tile_count = 0;  // this launch's tiles, tile_count from tile_begin in order

  KOKKOS_INLINE_FUNCTION int bm() const {
    if constexpr (Shape::fixed) return Shape::bm;
    return BM;
  }
  KOKKOS_INLINE_FUNCTION int bn() const {
    if constexpr (Shape::fixed) return Shape::bn;
    return BN;
  }
  KOKKOS_INLINE_FUNCTION int bk() const {
    if constexpr (Shape::fixed) return Shape::bk;
    return BK;
  }
  /// The tile a fixed Shape compiles in.
  static Tiling fixed_tile() { return {Shape::bm, Shape::bn, Shape::bk, TM, TN}; }
  /// Whether this launch splits K; never in a kernel compiled for launches that do not.
  KOKKOS_INLINE_FUNCTION bool split_launch() const { return !kWholeK && splits > 1; }
  /// The thread tiles of a team tile: the pipelined schedule's threads.
  KOKKOS_INLINE_FUNCTION int threads() const { return (bm() / TM) * (bn() / TN); }

  /// Team scratch: As and Bs twice (pipelined: double-buffered), or once with Cs (shared), and
  /// room to align the base.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int bm, int bn, int bk) {
    const std::size_t panels = a_panel_size<std::size_t>(bm, bk) + std::size_t(bk) * (bn + kPad);
    return sizeof(Scalar) * (kPipelined ? 2 * panels : panels + std::size_t(bm) * bn) + kAlign;
  }
  /// Scalars from the pipelined schedule's first buffer of As and Bs to its second.
  KOKKOS_INLINE_FUNCTION int buffer_size() const { return bk() * ((bm() + kPad) + (bn() + kPad)); }

  /// C = alpha * (the sum of the partials in range order) + beta * C over the launch's tiles.
  void sum_splits() const {
    kernels::sum_splits<ExecSpace>("tilemm::register_tiled::sum_splits", g, partials, bm(), bn(),
                                   splits, tile_begin, tile_count, *this);
  }

  /// Row and column of the tile that team `rank` computes (team/tile_order.hpp).
  KOKKOS_INLINE_FUNCTION void tile_of(int rank, int& tile_m, int& tile_n) const {
    band_order(rank, tiles_m, tiles_n, tile_m, tile_n);
  }

  /// A team's panels in scratch, and a thread's walk over one (team/panel.hpp).
  using Panel = ScratchPanel<Scalar>;
  using Walk = PanelWalk;

  /// op(X) as this kernel reads it: with the op fixed at compile time, or `x` itself (a
  /// reference, not a copy).
  KOKKOS_INLINE_FUNCTION static decltype(auto) as_read(const typename Operands::OpMatrix& x) {
    if constexpr (kOpsNN) {
      return OpN{x.x};
    } else {
      return (x);
    }
  }
  KOKKOS_INLINE_FUNCTION decltype(auto) op_a() const { return as_read(g.a); }
  KOKKOS_INLINE_FUNCTION decltype(auto) op_b() const { return as_read(g.b); }

  /// The A panel is transposed in scratch, so that a column of it is contiguous for a GPU thread's
  /// strips, unless a CPU's vector rows keep op(A)'s memory order (register_tiled/cpu_rows.hpp).
  KOKKOS_INLINE_FUNCTION Panel a_panel(Scalar* dst, int row0, int k0) const {
    const bool rows = Cpu::a_rows_in_scratch(*this);
    return Panel(dst, rows ? bk() + kPad : bm() + kPad, !rows, row0, k0, bm(), bk(),
                 op_a().contiguous_along_cols());
  }
  /// Scalars of scratch for the A panel in either order (Int: size_t where a launch is checked,
  /// int in the kernel, whose 32-bit offsets take fewer registers).
  template <class Int>
  KOKKOS_INLINE_FUNCTION static Int a_panel_size(Int bm, Int bk) {
    const Int transposed = bk * (bm + kPad), rows = bm * (bk + kPad);
    return Cpu::kVectorRows && rows > transposed ? rows : transposed;
  }
  KOKKOS_INLINE_FUNCTION Panel b_panel(Scalar* dst, int k0, int col0) const {
    return Panel(dst, bn() + kPad, false, k0, col0, bk(), bn(), op_b().contiguous_along_cols());
  }

  /// Shared schedule: the whole team copies the panel, zero outside op(X). Inside, a line a
  /// thread, so that a CPU core copies it with vector instructions (on a GPU this schedule is the
  /// fallback for teams smaller than the tile's thread count; its reads are not coalesced).
  template <class Op>
  KOKKOS_INLINE_FUNCTION static void load(const Member& team, const Op& x, const Panel& p) {
    const int rank = team.team_rank(), size = team.team_size();
    if (p.inside(x)) {
      const Scalar* origin = x.pointer(p.row0, p.col0);
      const int ld = x.leading();
      if (p.dst_along_lines()) {
        for (int line = rank; line < p.lines; line += size) {
          const Scalar* src = origin + std::ptrdiff_t(line) * ld;
          Scalar* dst = &p.at(line, 0);
          for (int pos = 0; pos < p.length; ++pos) dst[pos] = src[pos];
        }
      } else {
        for (int pos = rank; pos < p.length; pos += size) {
          const Scalar* src = origin + pos;
          Scalar* dst = &p.at(0, pos);
          for (int line = 0; line < p.lines; ++line) dst[line] = src[std::ptrdiff_t(line) * ld];
        }
      }
    } else {
      for (Walk w(rank, size, p.lines, p.length, 1); w.more(); w.next()) {
        p.at(w.line, w.pos()) = p.value(x, w.line, w.pos());
      }
    }
  }

  /// Where thread tile t lies in the team's tile: its first row and column, and the distance
  /// between its strips of kStrip rows (columns). In the shared schedule a thread tile is
  /// contiguous, so that a row of it fills vector registers on a CPU; the pipelined schedule
  /// interleaves them (register_tiled/pipeline.hpp).
  struct Place {
    int m, n, stride_m, stride_n;
  };
  KOKKOS_INLINE_FUNCTION Place place(int t) const {
    const int threads_n = bn() / TN;
    return {TM * (t / threads_n), TN * (t % threads_n), kStrip, kStrip};
  }

  /// a = As[kk][my rows], b = Bs[kk][my columns]: a thread's fragments of step kk of a K block (on
  /// a GPU a strip a load: register_tiled/pipeline.hpp).
  KOKKOS_INLINE_FUNCTION void fragments(const Scalar* As, const Scalar* Bs, const Place& p, int kk,
                                        Scalar (&a)[TM], Scalar (&b)[TN]) const {
    if constexpr (kStripReads) {
      Gpu::strip_fragments(*this, As, Bs, p, kk, a, b);
    } else {
      const int lda = bm() + kPad, ldb = bn() + kPad;
      TILEMM_UNROLL
      for (int i = 0; i < TM; ++i)
        a[i] = As[kk * lda + (i / kStrip) * p.stride_m + p.m + i % kStrip];
      TILEMM_UNROLL
      for (int j = 0; j < TN; ++j)
        b[j] = Bs[kk * ldb + (j / kStrip) * p.stride_n + p.n + j % kStrip];
    }
  }
  /// acc += a (x) b (in double on a GPU in a serpentine order: register_tiled/pipeline.hpp).
  KOKKOS_INLINE_FUNCTION static void outer_product(Scalar (&acc)[TM][TN], const Scalar (&a)[TM],
                                                   const Scalar (&b)[TN]) {
    if constexpr (!kOnCpu && sizeof(Scalar) == 8) {
      Gpu::serpentine_product(acc, a, b);
    } else {
      TILEMM_UNROLL
      for (int i = 0; i < TM; ++i) {
        TILEMM_UNROLL
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
      }
    }
  }
  /// acc += As[kk] (x) Bs[kk]: the outer product of step kk of a K block.
  KOKKOS_INLINE_FUNCTION void multiply_step(Scalar (&acc)[TM][TN], const Scalar* As,
                                            const Scalar* Bs, const Place& p, int kk) const {
    Scalar a[TM], b[TN];
    fragments(As, Bs, p, kk, a, b);
    outer_product(acc, a, b);
  }

  /// The outer products of one K block (on a CPU, rows of vector registers where it can:
  /// register_tiled/cpu_rows.hpp).
  KOKKOS_INLINE_FUNCTION void multiply(Scalar (&acc)[TM][TN], const Scalar* As, const Scalar* Bs,
                                       const Place& p) const {
#ifdef TILEMM_HOST_VECTORS
    if constexpr (Cpu::kVectorRows) {
      return Cpu::multiply(*this, acc, As, Bs, p);
    }
#endif
    for (int kk = 0; kk < BK; ++kk) multiply_step(acc, As, Bs, p, kk);
  }

  /// C[thread tile at p] = alpha * acc + beta * C[...], inside the matrix only; with K split,
  /// acc as it is into the partial tile of this team's range of K.
  KOKKOS_INLINE_FUNCTION void store(const Scalar (&acc)[TM][TN], const Member& team, int row0,
                                    int col0, const Place& p) const {
    const int M = g.m(), N = g.n();
    // Found again from the team rather than kept through the K loop, where float's 8x8 thread
    // tiles have no register to spare.
    const int split = split_launch() ? team.league_rank() / tile_count : 0;
    const int local = team.league_rank() - split * tile_count;
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      const int row = row0 + p.m + (i / kStrip) * p.stride_m + i % kStrip;
      TILEMM_UNROLL
      for (int j = 0; j < TN; ++j) {
        const int col = col0 + p.n + (j / kStrip) * p.stride_n + j % kStrip;
        if (row >= M || col >= N) continue;
        // The epilogue/store.hpp's store_element, written out: through the call ptxas schedules
        // the shared schedule's GPU kernels differently.
        if (split_launch()) {
          partials[partial_offset<Layout>(*this, split, local, row - row0, col - col0)] = acc[i][j];
        } else {
          scale_into(g.c(row, col), acc[i][j], g.alpha, g.beta);
        }
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    // This team's tile of C: teams take the launch's tiles for K's first range, then for its
    // second, ...
    const int split = kWholeK ? 0 : team.league_rank() / tile_count;
    int tile_m, tile_n;
    tile_of(tile_begin + team.league_rank() - split * tile_count, tile_m, tile_n);
    const int row0 = tile_m * bm(), col0 = tile_n * bn();
    // This team's range of K, [k_begin, k_end): all of it unless the launch splits K.
    const int k_begin = split * k_split;
    // (splits == 1 rather than !split_launch(), the same test: ptxas allocates the split kernels'
    // registers by such details.)
    const int K = kWholeK || splits == 1 || g.k() - k_begin < k_split ? g.k() - k_begin : k_split;
    const int k_end = k_begin + K;
    // The panels in scratch; on a GPU always in level 0 (the launch's plan()).
    const int scratch_level = kOnCpu ? level : 0;
    void* shmem = team.team_scratch(scratch_level).get_shmem(scratch_bytes(bm(), bn(), bk()));
    Scalar* As = aligned_scratch<Scalar, kAlign, kOnCpu>(shmem);
    Scalar* Bs = As + a_panel_size(bm(), bk());
    if constexpr (kPipelined) {
      Gpu::run(*this, team, row0, col0, k_begin, k_end, As, Bs);
    } else {
      using Block = Scalar[TM][TN];
      Block* Cs = reinterpret_cast<Block*>(Bs + bk() * (bn() + kPad));  // a block per thread tile
      const int tiles = (bm() / TM) * (bn() / TN);
      for (int t = team.team_rank(); t < tiles; t += team.team_size()) {
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j) Cs[t][i][j] = 0;
      }
      for (int k0 = k_begin; k0 < k_end; k0 += bk()) {
        load(team, op_a(), a_panel(As, row0, k0));
        load(team, op_b(), b_panel(Bs, k0, col0));
        team.team_barrier();
        for (int t = team.team_rank(); t < tiles; t += team.team_size()) {
          Scalar acc[TM][TN];
          for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j) acc[i][j] = Cs[t][i][j];
          multiply(acc, As, Bs, place(t));
          for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j) Cs[t][i][j] = acc[i][j];
        }
        team.team_barrier();
      }
      for (int t = team.team_rank(); t < tiles; t += team.team_size()) {
        store(Cs[t], team, row0, col0, place(t));
      }
    }
  }
};

}  // namespace tilemm::kernels
