// register-tiled on a GPU: the pipelined schedule, and the GPU's reads of the core's fragments.
//
// The core (register_tiled/kernel.hpp) keeps each thread tile's accumulators in scratch between K
// blocks, and its threads wait at two barriers a K block while the panels load. A GPU launch gives
// each thread tile a thread of its own (so may a CPU launch that asks for such a team), and this
// schedule turns the core into a pipeline:
//
//   acc = 0                                      in registers for the whole K loop
//   stage = my share of the first K block's panels of A and B
//   As[0], Bs[0] = stage; team_barrier
//   for each K block i:
//     stage = my share of block i + 1's panels    global loads in flight during the multiply-adds
//     for kk < BK:
//       a = As[i % 2][kk][my rows], b = Bs[i % 2][kk][my cols]
//       acc += a (x) b
//     As[(i + 1) % 2], Bs[(i + 1) % 2] = stage    the other buffer, last read before the barrier
//     team_barrier
//   C[my thread tile] = alpha * acc + beta * C
//
// The transformations of the core, and why:
// - The accumulators stay in registers for the whole K loop: no scratch accesses for them.
// - The panels are double-buffered through registers: each thread fetches its share of the next K
//   block before it multiplies the current one, so that the loads are in flight during the
//   multiply-adds, and one barrier a K block is enough.
// - Strip reads: a thread's rows (and columns) are strips of 16 bytes, the widest load of a GPU
//   thread, spaced apart so that neighbouring threads read neighbouring 16-byte words of scratch,
//   without bank conflicts. A GPU reads the core's fragments so in either schedule.
// - Warp grid (compiled-in double tiles): each warp's 32 threads tile a region of their own, lanes
//   in CUTLASS's order, which halves the shared-memory wavefronts of the reads of Bs.
// - Serpentine outer product (double): every other row runs its columns backwards, so that the
//   multiply-adds either side of a row's turn share an operand.
// The compiled-in double tiles transform it further: register_tiled/shares.hpp.
//
// What ptxas makes of this code decides its speed, and small changes of form (where an address is
// made, what is made again rather than kept) change its register allocation and its schedule: the
// forms here are the fastest measured (perf/README.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/team/vec.hpp"
#include "tilemm/kernels/unroll.hpp"
#include "tilemm/types.hpp"

namespace tilemm::kernels {

template <class ExecSpace, class Scalar, class Layout, class Variant>
struct RegisterTiledGemm;  // register_tiled/kernel.hpp

template <class ExecSpace, class Scalar, class Layout, class Variant>
struct RegisterTiledGpu {
  using Kernel = RegisterTiledGemm<ExecSpace, Scalar, Layout, Variant>;
  using Shape = typename Variant::shape;
  using Member = typename Kernel::Member;
  using Panel = typename Kernel::Panel;
  using Place = typename Kernel::Place;
  using Walk = typename Kernel::Walk;
  static constexpr int TM = Variant::tm, TN = Variant::tn;
  static constexpr int kTeam = Kernel::kTeam, kStrip = Kernel::kStrip, kPad = Kernel::kPad;

  // The most elements of a panel rows x cols that one thread stages in registers: a fixed tile's
  // share exactly (a multiple of 4, for Quad loads). When the panel's quads divide evenly among
  // the team, every thread has its full share of them and need not check.
  static constexpr int kRuntimeStage = 8;  // a tile that is not compiled in
  static constexpr int stage_size(int rows, int cols) {
    return Shape::fixed ? ((rows * cols + kTeam - 1) / std::max(kTeam, 1) + 3) / 4 * 4
                        : kRuntimeStage;
  }
  static constexpr bool even_quads(int rows, int cols) {
    return Shape::fixed && (rows * cols) % (4 * std::max(kTeam, 1)) == 0;
  }
  static constexpr int kStageA = stage_size(Shape::bm, Shape::bk);
  static constexpr int kStageB = stage_size(Shape::bk, Shape::bn);
  static constexpr bool kEvenA = even_quads(Shape::bm, Shape::bk);
  static constexpr bool kEvenB = even_quads(Shape::bk, Shape::bn);

  /// Whether each of `team` threads can stage its share of both panels in the registers a tile
  /// that is not compiled in has for them.
  static bool shares_fit(int bm, int bn, int bk, int team) {
    return ceil_div(std::int64_t(bm) * bk, team) <= kRuntimeStage &&
           ceil_div(std::int64_t(bk) * bn, team) <= kRuntimeStage;
  }

  // A compiled-in double tile: each warp's 32 thread tiles a kWarpM x kWarpN grid over their own
  // region of the tile, lanes interleaved as CUTLASS's SIMT warps do (RowMajorInterleaved<2>):
  // lane l at row 2 (l / 16) + l % 2 and column (l / 2) % 8. A 16-byte read takes a wavefront for
  // each 128 bytes of a half-warp's words, distinct within each of its quarter-warps but not
  // across them. Here a quarter reads 2 strips of As and 4 of Bs: one wavefront a half-warp for
  // each. Across the whole tile, or in a row-major 4 x 8 grid, a quarter reads 8 strips of Bs: two.
  static constexpr int kWarpM = 4, kWarpN = 8;
  static constexpr bool kWarpGrid =
      Kernel::kPipelined && Kernel::kStripReads && sizeof(Scalar) == 8 && Shape::fixed &&
      Shape::bm % (kWarpM * TM) == 0 && Shape::bn % (kWarpN * TN) == 0 && kTeam % 32 == 0;
  /// Where thread tile t lies in the team's tile (the core's place()): interleaved with the other
  /// threads' strips, within a warp's region (kWarpGrid) or across the whole tile.
  KOKKOS_INLINE_FUNCTION static Place place(const Kernel& k, int t) {
    const int threads_n = k.bn() / TN;
    if constexpr (kWarpGrid) {
      const int warp = t / 32, lane = t % 32, warps_n = Shape::bn / (kWarpN * TN);
      const int row = 2 * (lane / 16) + lane % 2, col = (lane / 2) % 8;
      return {(warp / warps_n) * kWarpM * TM + row * kStrip,
              (warp % warps_n) * kWarpN * TN + col * kStrip, kWarpM * kStrip, kWarpN * kStrip};
    } else {
      return {kStrip * (t / threads_n), kStrip * (t % threads_n), kStrip * (k.bm() / TM),
              kStrip * threads_n};
    }
  }

  /// The core's fragments(), a strip (16 bytes) a load.
  KOKKOS_FORCEINLINE_FUNCTION static void strip_fragments(const Kernel& k, const Scalar* As,
                                                          const Scalar* Bs, const Place& p, int kk,
                                                          Scalar (&a)[TM], Scalar (&b)[TN]) {
    const int lda = k.bm() + kPad, ldb = k.bn() + kPad;
    using Strip = Vec<Scalar, kStrip>;
    TILEMM_UNROLL
    for (int s = 0; s < TM / kStrip; ++s) {
      const auto v = *reinterpret_cast<const Strip*>(As + kk * lda + s * p.stride_m + p.m);
      TILEMM_UNROLL
      for (int i = 0; i < kStrip; ++i) a[kStrip * s + i] = v.v[i];
    }
    TILEMM_UNROLL
    for (int s = 0; s < TN / kStrip; ++s) {
      const auto v = *reinterpret_cast<const Strip*>(Bs + kk * ldb + s * p.stride_n + p.n);
      TILEMM_UNROLL
      for (int j = 0; j < kStrip; ++j) b[kStrip * s + j] = v.v[j];
    }
  }
  /// The core's outer_product() in double: every other row runs its columns backwards, so that
  /// the multiply-adds either side of a row's turn share b[j], which the second presumably takes
  /// from the operand reuse cache. (In float the same order spills.)
  KOKKOS_FORCEINLINE_FUNCTION static void serpentine_product(Scalar (&acc)[TM][TN],
                                                             const Scalar (&a)[TM],
                                                             const Scalar (&b)[TN]) {
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      TILEMM_UNROLL
      for (int step = 0; step < TN; ++step) {
        const int j = i % 2 == 1 ? TN - 1 - step : step;
        acc[i][j] += a[i] * b[j];
      }
    }
  }

  /// Quad q into panel p at (line, pos): a strip a store where neighbours along a line are
  /// neighbours in scratch too (scratch rows are aligned to strips: kPad), else a scalar a store.
  KOKKOS_INLINE_FUNCTION static void put_quad(const Panel& p, int line, int pos,
                                              const Quad<Scalar>& q) {
    if (p.dst_along_lines()) {
      using Strip = Vec<Scalar, kStrip>;
      TILEMM_UNROLL
      for (int i = 0; i < 4; i += kStrip) {
        Strip strip;
        TILEMM_UNROLL
        for (int j = 0; j < kStrip; ++j) strip.v[j] = q.v[i + j];
        *reinterpret_cast<Strip*>(&p.at(line, pos + i)) = strip;
      }
    } else {
      TILEMM_UNROLL
      for (int i = 0; i < 4; ++i) p.at(line, pos + i) = q.v[i];
    }
  }

  /// This thread's share of panel p into registers (the launch's plan() checked that it has at
  /// most N elements), 4 neighbours a load when the panel lies inside op(X) and its runs of 4 are
  /// aligned; `quad_walk` is where this thread's walk over such a panel starts, made once before
  /// the K loop: made in the loop, its divisions by run-time extents would be done again for every
  /// K block. Returns whether the panel was read by quads, for deposit().
  template <bool kEven, int N, class Op>
  KOKKOS_INLINE_FUNCTION static bool fetch(const Kernel& k, const Op& x, bool quads_ok,
                                           const Panel& p, int rank, const Walk& quad_walk,
                                           Scalar (&stage)[N]) {
    const bool quads = quads_ok && p.length % 4 == 0 && p.inside(x);
    if (quads) {
      const Scalar* origin = x.pointer(p.row0, p.col0);
      const int ld = x.leading();
      Walk w = quad_walk;
      TILEMM_UNROLL
      for (int s = 0; s < N / 4; ++s, w.next()) {
        if (kEven || w.more()) {
          const auto q = *reinterpret_cast<const Quad<Scalar>*>(
              origin + std::ptrdiff_t(w.line) * ld + w.pos());
          TILEMM_UNROLL
          for (int i = 0; i < 4; ++i) stage[4 * s + i] = q.v[i];
        }
      }
    } else {
      Walk w = p.walk(rank, k.threads(), 1);
      TILEMM_UNROLL
      for (int s = 0; s < N; ++s, w.next()) {
        if (w.more()) stage[s] = p.value(x, w.line, w.pos());
      }
    }
    return quads;
  }
  /// ... and from registers to scratch, by the same walk. (A walk made for each element before
  /// the K loop would be kept in registers for the whole loop; a quad walk's start is two numbers.
  /// The stores keep their check even when the shares are even: without it, nvcc spilled float
  /// 128x128x16/8x8 at its 128 registers.)
  template <int N>
  KOKKOS_INLINE_FUNCTION static void deposit(const Kernel& k, bool quads, const Panel& p, int rank,
                                             const Walk& quad_walk, const Scalar (&stage)[N]) {
    if (quads) {
      Walk w = quad_walk;
      TILEMM_UNROLL
      for (int s = 0; s < N / 4; ++s, w.next()) {
        if (w.more()) {
          Quad<Scalar> q;
          TILEMM_UNROLL
          for (int i = 0; i < 4; ++i) q.v[i] = stage[4 * s + i];
          put_quad(p, w.line, w.pos(), q);
        }
      }
    } else {
      Walk w = p.walk(rank, k.threads(), 1);
      TILEMM_UNROLL
      for (int s = 0; s < N; ++s, w.next()) {
        if (w.more()) p.at(w.line, w.pos()) = stage[s];
      }
    }
  }

  /// The outer products of one K block (the core's multiply()); a fixed tile's unrolled 8 steps at
  /// a time, so that scratch offsets become constants of the instructions (whole 16-step blocks
  /// would take more than 128 registers in float 8x8).
  KOKKOS_INLINE_FUNCTION static void multiply(const Kernel& k, Scalar (&acc)[TM][TN],
                                              const Scalar* As, const Scalar* Bs, const Place& p) {
    if constexpr (Shape::fixed) {
      constexpr int kUnrolled = Shape::bk % 8 == 0 ? 8 : Shape::bk;
      for (int k8 = 0; k8 < Shape::bk; k8 += kUnrolled) {
        TILEMM_UNROLL
        for (int kk = 0; kk < kUnrolled; ++kk) k.multiply_step(acc, As, Bs, p, k8 + kk);
      }
    } else {
      k.multiply(acc, As, Bs, p);
    }
  }

  /// The team's tile of C at (row0, col0) from its range of K, [k_begin, k_end), with the panels'
  /// two buffers at As and Bs: the pipeline above, its panels staged through registers by fetch()
  /// and deposit(); or its form for compiled-in double tiles (register_tiled/shares.hpp). (The
  /// staged loop is written here rather than in a function of its own: as one, nvcc's optimizer
  /// would simplify it apart and schedule the kernel differently.)
  KOKKOS_INLINE_FUNCTION static void run(const Kernel& k, const Member& team, int row0, int col0,
                                         int k_begin, int k_end, Scalar* As, Scalar* Bs) {
    const int buffer_size = k.buffer_size();
    const int rank = team.team_rank();
    const Place p = place(k, rank);
    Scalar acc[TM][TN] = {};
    if constexpr (Kernel::Shares::kShares) {
      Kernel::Shares::run(k, team, rank, p, acc, row0, col0, k_begin, k_end, As, Bs);
    } else {
      Scalar stage_a[kStageA], stage_b[kStageB];
      const Walk walk_a = k.a_panel(As, row0, k_begin).walk(rank, k.threads(), 4);
      const Walk walk_b = k.b_panel(Bs, k_begin, col0).walk(rank, k.threads(), 4);
      bool quads_in_a = fetch<kEvenA>(k, k.op_a(), k.quads_a, k.a_panel(As, row0, k_begin), rank,
                                      walk_a, stage_a);
      bool quads_in_b = fetch<kEvenB>(k, k.op_b(), k.quads_b, k.b_panel(Bs, k_begin, col0), rank,
                                      walk_b, stage_b);
      deposit(k, quads_in_a, k.a_panel(As, row0, k_begin), rank, walk_a, stage_a);
      deposit(k, quads_in_b, k.b_panel(Bs, k_begin, col0), rank, walk_b, stage_b);
      team.team_barrier();
      for (int k0 = k_begin, buffer = 0; k0 < k_end; k0 += k.bk(), buffer ^= 1) {
        const bool next = k0 + k.bk() < k_end;
        const int current = buffer * buffer_size, other = (buffer ^ 1) * buffer_size;
        if (next) {  // global loads in flight while the thread tile is updated
          const Panel a = k.a_panel(As + other, row0, k0 + k.bk());
          const Panel b = k.b_panel(Bs + other, k0 + k.bk(), col0);
          quads_in_a = fetch<kEvenA>(k, k.op_a(), k.quads_a, a, rank, walk_a, stage_a);
          quads_in_b = fetch<kEvenB>(k, k.op_b(), k.quads_b, b, rank, walk_b, stage_b);
        }
        multiply(k, acc, As + current, Bs + current, p);
        if (next) {  // the other buffer was last read before the previous barrier
          // Panels made again rather than kept across the multiply: kept, they cost double 8x8
          // registers it does not have.
          deposit(k, quads_in_a, k.a_panel(As + other, row0, k0 + k.bk()), rank, walk_a, stage_a);
          deposit(k, quads_in_b, k.b_panel(Bs + other, k0 + k.bk(), col0), rank, walk_b, stage_b);
        }
        team.team_barrier();
      }
    }
    k.store(acc, team, row0, col0, p);
  }
};

}  // namespace tilemm::kernels
