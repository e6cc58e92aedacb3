// tensor-tiled's wide schedule of a float K block (a tile marked WarpSchedule::wide,
// tensor_tiled/kernel.hpp): the products of mma_block, with three transformations that cut the
// instructions a K block issues besides the mma, which on sm_90 outnumber the mma several times
// over in mma_block:
//
//   - 16-byte fragment loads of an operand that runs along k. The mma sums its 8 k in any order,
//     as long as A and B take the same one: so k-step s of a 16-deep block gives lane (g, t) the k
//     4 t + 2 s and 4 t + 2 s + 1 where PTX's maps say t and t + 4. A lane's elements of both
//     k-steps are then 4 neighbours of its row g (and g + 8 in A) of a scratch in rows of k: one
//     16-byte load each, where mma_block makes 8 loads of 4 bytes for A and 4 for B. An operand
//     that runs along m or n is read 4 bytes an element, at rows 4 t + 2 s (+ 1) of its scratch.
//   - Unpadded, swizzled rows (operand_scratch.hpp). Rows of 16 floats: a quarter-warp's 16-byte
//     loads (rows g and g + 1, all 16 k) cover the 32 banks once. Rows of m or n, row k moved by
//     8 ((k / 4) % 4) columns: the 32 lanes' loads of rows 4 t + c at columns r0 + g meet in no
//     bank. Both keep 16-byte runs whole for the copies, whose quarter-warps write 128 contiguous
//     bytes or one swizzled group of 32 columns; and a buffer of 128x64x16 takes 12 KB, so three
//     fit a team's scratch.
//   - The split rounds to nearest even: one F2FP instruction on sm_90, where mma_block's rounding
//     to nearest away takes a few integer ones; the split's bound is the same.
//
// Each fragment is loaded and split once a K block and used by every mma it takes part in, as in
// mma_block. CPU backends read the same layouts through OperandScratch (product).
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

#ifdef TILEMM_TENSOR_MMA
  /// acc += the K block's products of a warp's FM x FN fragments at (wm0, wn0).
  template <int FM, int FN>
  __device__ static void block(float (&acc)[FM][FN][Frag::kC], const float* As, OperandScratch at,
                               const float* Bs, OperandScratch bt, int wm0, int wn0, int lane) {
    Frag::ReadyA a[FM][kSteps];
    Frag::ReadyB b[FN][kSteps];
    TILEMM_UNROLL
    for (int i = 0; i < FM; ++i) {
      Frag::A loaded[kSteps];
      load_a(As, at, wm0 + Frag::kM * i, lane, loaded);
      TILEMM_UNROLL
      for (int s = 0; s < kSteps; ++s) a[i][s] = Frag::ready<true>(loaded[s]);
    }
    TILEMM_UNROLL
    for (int j = 0; j < FN; ++j) {
      Frag::B loaded[kSteps];
      load_b(Bs, bt, wn0 + Frag::kN * j, lane, loaded);
      TILEMM_UNROLL
      for (int s = 0; s < kSteps; ++s) b[j][s] = Frag::ready<true>(loaded[s]);
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
