// tensor-tiled's wide schedule of a float K block (a tile marked WarpSchedule::wide,
// tensor_tiled/kernel.hpp): the products of BlockProduct::mma (block_product.hpp), with four
// transformations that cut the instructions a K block issues besides the mma, which on sm_90
// outnumber the mma several times over there:
//
//   - 16-byte fragment loads of an operand that runs along k. The mma sums its 8 k in any order,
//     as long as A and B take the same one: so k-step s of a 16-deep block gives lane (g, t) the k
//     4 t + 2 s and 4 t + 2 s + 1 where PTX's maps say t and t + 4. A lane's elements of both
//     k-steps are then 4 neighbours of its row g (and g + 8 in A) of a scratch in rows of k: one
//     16-byte load each, where BlockProduct::mma makes 8 loads of 4 bytes for A and 4 for B.
//   - 16-byte fragment loads of an operand that runs along m or n, by interleaving the warp's
//     fragments. Which rows of the warp's region a fragment's row g stands for is free too, as
//     long as C's elements go back to the same rows: so lane (g, t) takes rows 8 g .. 8 g + 7 of
//     the warp's 64 (fragment i's rows g and g + 8 are 8 g + 2 i and 8 g + 2 i + 1) and columns
//     4 g .. 4 g + 3 of its 32 (fragment j's column g is 4 g + j). Its elements of every fragment
//     at one k are then neighbours in a scratch row of m or n: two 16-byte loads for A, one for
//     B, at each of its 4 k, where reading 4 bytes an element takes 32 loads for A and 16 for B.
//     The store (c_row, c_col) puts C's elements back where their rows and columns lie.
//   - Unpadded, swizzled rows (operand_scratch.hpp). Rows of 16 floats: a quarter-warp's 16-byte
//     loads (rows g and g + 1, all 16 k) cover the 32 banks once. Rows of m or n, row k moved by
//     whole 16-byte runs by (k / 4) % 4, so that the quarter-warp's loads at rows 4 t + c meet in
//     no bank: by 8 ((k / 4) % 4) columns for B's runs of 4 a lane; by 4 and 16 columns (bits 0
//     and 1 of (k / 4) % 4) for A's runs of 8. Both keep 16-byte runs whole for the copies, whose
//     quarter-warps write 128 contiguous bytes or one swizzled group of 32 columns; and a buffer
//     of 128x64x16 takes 12 KB, so three fit a team's scratch.
//   - The split rounds to nearest even: one F2FP instruction on sm_90, where BlockProduct::mma's
//   rounding
//     to nearest away takes a few integer ones; the split's bound is the same.
//
// Each fragment is loaded and split once a K block and used by every mma it takes part in, as in
// BlockProduct::mma. CPU backends read the same layouts through OperandScratch (product), in the
// fragments' own maps.
#pragma once

#include "tilemm/kernels/team/vec.hpp"
#include "tilemm/kernels/unroll.hpp"
#include "tilemm/kernels/warp/mma_fragment.hpp"

namespace tilemm::kernels {

/// A lane's fragments of a 16-deep float K block in the wide schedule, from scratch laid out by
/// OperandScratch in either order (rows of k: rows of 16 floats, unswizzled).
struct WideTf32 {
  using Frag = MmaFragment<float, 8>;
  static constexpr int kDepth = 16, kSteps = 2;

  /// The 4 neighbours k = 4 t .. 4 t + 3 of row r of an operand block laid out by `at`: one
  /// 16-byte load from rows of k, else four 4-byte loads.
  KOKKOS_INLINE_FUNCTION static Quad<float> four_k(const float* Xs, OperandScratch at, int r,
                                                   int lane) {
    const int k0 = 4 * (lane % 4);
    if (at.along == Along::k) return *reinterpret_cast<const Quad<float>*>(Xs + at(r, k0));
    Quad<float> q;
    TILEMM_UNROLL
    for (int j = 0; j < 4; ++j) q.v[j] = Xs[at(r, k0 + j)];
    return q;
  }
  /// Lane `lane`'s A elements of both k-steps of the m16 x 16 block at row m0 of As.
  KOKKOS_INLINE_FUNCTION static void load_a(const float* As, OperandScratch at, int m0, int lane,
                                            Frag::A (&a)[kSteps]) {
    const Quad<float> upper = four_k(As, at, m0 + lane / 4, lane);
    const Quad<float> lower = four_k(As, at, m0 + lane / 4 + 8, lane);
    TILEMM_UNROLL
    for (int s = 0; s < kSteps; ++s) {
      TILEMM_UNROLL
      for (int i = 0; i < Frag::kA; ++i) {  // element i: row g + 8 (i % 2), k 4 t + 2 s + i / 2
        a[s].v[i] = (i % 2 ? lower : upper).v[2 * s + i / 2];
      }
    }
  }
  /// Lane `lane`'s B elements of both k-steps of the 16 x n8 block at column n0 of Bs.
  KOKKOS_INLINE_FUNCTION static void load_b(const float* Bs, OperandScratch at, int n0, int lane,
                                            Frag::B (&b)[kSteps]) {
    const Quad<float> column = four_k(Bs, at, n0 + lane / 4, lane);
    TILEMM_UNROLL
    for (int s = 0; s < kSteps; ++s) {
      TILEMM_UNROLL
      for (int i = 0; i < Frag::kB; ++i) b[s].v[i] = column.v[2 * s + i];  // k 4 t + 2 s + i
    }
  }

  /// The interleaved fragments' scalars a lane holds at one k: 8 rows of A, 4 columns of B.
  static constexpr int kRowsA = 8, kColsB = 4;
  /// Lane `lane`'s runs of `count` scalars from column r0 + count g of the rows k = 4 t + j of
  /// an operand block that runs along m or n (its region's interleaved fragments): runs[j][q] is
  /// the 16-byte run q of row 4 t + j.
  template <int Quads>
  KOKKOS_INLINE_FUNCTION static void interleaved_runs(const float* Xs, OperandScratch at, int r0,
                                                      int lane, Quad<float> (&runs)[4][Quads]) {
    const int r = r0 + 4 * Quads * (lane / 4), k0 = 4 * (lane % 4);
    TILEMM_UNROLL
    for (int j = 0; j < 4; ++j) {
      TILEMM_UNROLL
      for (int q = 0; q < Quads; ++q)
        runs[j][q] = *reinterpret_cast<const Quad<float>*>(Xs + at(r + 4 * q, k0 + j));
    }
  }
  /// Lane `lane`'s A elements of both k-steps of the FM fragments of a warp's region at row m0
  /// of As, which runs `kAlong`: each fragment on its own from rows of k, interleaved from rows
  /// of m (see above).
  template <Along kAlong, int FM>
  KOKKOS_INLINE_FUNCTION static void load_a_warp(const float* As, OperandScratch at, int m0,
                                                 int lane, Frag::A (&a)[FM][kSteps]) {
    if constexpr (kAlong == Along::k) {
      TILEMM_UNROLL
      for (int i = 0; i < FM; ++i) load_a(As, at, m0 + Frag::kM * i, lane, a[i]);
    } else {
      static_assert(2 * FM == kRowsA, "interleaved rows: a warp region of 64 rows");
      Quad<float> runs[4][kRowsA / 4];
      interleaved_runs(As, at, m0, lane, runs);
      TILEMM_UNROLL
      for (int i = 0; i < FM; ++i) {
        TILEMM_UNROLL
        for (int s = 0; s < kSteps; ++s) {
          // Element e: row 2 i + e % 2 of the lane's 8, k 4 t + 2 s + e / 2.
          TILEMM_UNROLL
          for (int e = 0; e < Frag::kA; ++e) {
            const int row = 2 * i + e % 2;
            a[i][s].v[e] = runs[2 * s + e / 2][row / 4].v[row % 4];
          }
        }
      }
    }
  }
  /// Lane `lane`'s B elements of both k-steps of the FN fragments of a warp's region at column
  /// n0 of Bs, which runs `kAlong`: each on its own from rows of k, interleaved from rows of n.
  template <Along kAlong, int FN>
  KOKKOS_INLINE_FUNCTION static void load_b_warp(const float* Bs, OperandScratch at, int n0,
                                                 int lane, Frag::B (&b)[FN][kSteps]) {
    if constexpr (kAlong == Along::k) {
      TILEMM_UNROLL
      for (int j = 0; j < FN; ++j) load_b(Bs, at, n0 + Frag::kN * j, lane, b[j]);
    } else {
      static_assert(FN == kColsB, "interleaved columns: a warp region of 32 columns");
      Quad<float> runs[4][1];
      interleaved_runs(Bs, at, n0, lane, runs);
      TILEMM_UNROLL
      for (int j = 0; j < FN; ++j) {
        TILEMM_UNROLL
        for (int s = 0; s < kSteps; ++s) {
          TILEMM_UNROLL
          for (int e = 0; e < Frag::kB; ++e) b[j][s].v[e] = runs[2 * s + e][0].v[j];  // k 4t+2s+e
        }
      }
    }
  }
  /// The row, within its warp's region, of a lane's element e of C in fragment row i (A runs
  /// `along`), and the column of element e in fragment column j (B runs `along`).
  template <Along kAlong>
  KOKKOS_INLINE_FUNCTION static constexpr int c_row(int i, int lane, int e) {
    return kAlong == Along::k ? Frag::kM * i + Frag::c_row(lane, e)
                              : kRowsA * (lane / 4) + 2 * i + e / 2;
  }
  template <Along kAlong>
  KOKKOS_INLINE_FUNCTION static constexpr int c_col(int j, int lane, int e) {
    return kAlong == Along::k ? Frag::kN * j + Frag::c_col(lane, e)
                              : kColsB * Frag::c_col(lane, e) + j;
  }

#ifdef TILEMM_TENSOR_MMA
  /// acc += the K block's products of a warp's FM x FN fragments at (wm0, wn0), As running
  /// kAlongA and Bs kAlongB.
  template <Along kAlongA, Along kAlongB, int FM, int FN>
  __device__ static void block(float (&acc)[FM][FN][Frag::kC], const float* As, OperandScratch at,
                               const float* Bs, OperandScratch bt, int wm0, int wn0, int lane) {
    Frag::ReadyA a[FM][kSteps];
    Frag::ReadyB b[FN][kSteps];
    {
      Frag::A loaded[FM][kSteps];
      load_a_warp<kAlongA>(As, at, wm0, lane, loaded);
      TILEMM_UNROLL
      for (int i = 0; i < FM; ++i) {
        TILEMM_UNROLL
        for (int s = 0; s < kSteps; ++s) a[i][s] = Frag::ready<true>(loaded[i][s]);
      }
    }
    {
      Frag::B loaded[FN][kSteps];
      load_b_warp<kAlongB>(Bs, bt, wn0, lane, loaded);
      TILEMM_UNROLL
      for (int j = 0; j < FN; ++j) {
        TILEMM_UNROLL
        for (int s = 0; s < kSteps; ++s) b[j][s] = Frag::ready<true>(loaded[j][s]);
      }
    }
    TILEMM_UNROLL
    for (int s = 0; s < kSteps; ++s) {
      TILEMM_UNROLL
      for (int i = 0; i < FM; ++i) {
        TILEMM_UNROLL
        for (int j = 0; j < FN; ++j) Frag::mma(acc[i][j], a[i][s], b[j][s]);
      }
    }
  }
#endif
};

}  // namespace tilemm::kernels
