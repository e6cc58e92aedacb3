// The warp level of tensor-tiled: a warp's products of one K block of scratch into its region's
// accumulators, FM x FN fragments of the instruction's 16 x 8 (mma_fragment.hpp).
//
//   for kk < BK, step the instruction's depth:
//     a[i] = load_a(As, my warp's fragment row i, kk)     (and split, in float), each i < FM
//     b[j] = load_b(Bs, my warp's fragment column j, kk)  each j < FN
//     acc[i][j] += mma(a[i], b[j])                         every i, j
//
// `mma` runs the warp's matrix instruction (a device pass from sm_80); `plain` computes the same
// products lane by lane, each lane its own elements of the fragments, for CPU teams and for float
// whose K is too short for split TF32. Both are unrolled, so that a GPU keeps acc in registers.
// Float's wide schedule of 16-deep K blocks has its own loads (wide_tf32.hpp).
#pragma once

#include "tilemm/kernels/unroll.hpp"
#include "tilemm/kernels/warp/mma_fragment.hpp"
#include "tilemm/kernels/warp/operand_scratch.hpp"

namespace tilemm::kernels {

template <class Scalar, int InstK, int FM, int FN, int BK>
struct BlockProduct {
  using Frag = MmaFragment<Scalar, InstK>;
  using Acc = Scalar[FM][FN][Frag::kC];

#ifdef TILEMM_TENSOR_MMA
  /// For each step of the instruction's depth, the warp's fragments of A and B loaded (and
  /// split, in float) once and multiplied in every combination.
  __device__ static void mma(Acc& acc, const Scalar* As, OperandScratch a_at, const Scalar* Bs,
                             OperandScratch b_at, int wm0, int wn0, int lane) {
    TILEMM_UNROLL
    for (int kk = 0; kk < BK; kk += Frag::kK) {
      typename Frag::ReadyA a[FM];
      typename Frag::ReadyB b[FN];
      TILEMM_UNROLL
      for (int i = 0; i < FM; ++i)
        a[i] = Frag::ready(Frag::load_a(As, a_at, wm0 + Frag::kM * i, kk, lane));
      TILEMM_UNROLL
      for (int j = 0; j < FN; ++j)
        b[j] = Frag::ready(Frag::load_b(Bs, b_at, kk, wn0 + Frag::kN * j, lane));
      TILEMM_UNROLL
      for (int i = 0; i < FM; ++i) {
        TILEMM_UNROLL
        for (int j = 0; j < FN; ++j) Frag::mma(acc[i][j], a[i], b[j]);
      }
    }
  }
#endif

  /// The same products lane by lane, without a warp.
  KOKKOS_INLINE_FUNCTION static void plain(Acc& acc, const Scalar* As, OperandScratch a_at,
                                           const Scalar* Bs, OperandScratch b_at, int wm0, int wn0,
                                           int lane) {
    TILEMM_UNROLL
    for (int kk = 0; kk < BK; kk += Frag::kK) {
      TILEMM_UNROLL
      for (int i = 0; i < FM; ++i) {
        TILEMM_UNROLL
        for (int j = 0; j < FN; ++j) {
          Frag::product(acc[i][j], As, a_at, Bs, b_at, wm0 + Frag::kM * i, wn0 + Frag::kN * j, kk,
                        lane);
        }
      }
    }
  }
};

}  // namespace tilemm::kernels
