// tensor-tiled's wide schedule of a float K block (a tile's `Wide` flag, tensor_tiled/kernel.hpp):
// the products of mma_block, with three transformations that cut the instructions a K block issues
// besides the mma, which on sm_90 outnumber the mma several times over in mma_block:
//
//   - 16-byte fragment loads of A. The mma sums its 8 k in any order, as long as A and B take the
//     same one: so k-step s of a 16-deep block gives lane (g, t) the k 4 t + 2 s and 4 t + 2 s + 1
//     where PTX's maps say t and t + 4. A lane's A elements of both k-steps are then 4 neighbours
//     of row g (and of row g + 8) of As[m][k]: one 16-byte load each, where mma_block makes 8
//     loads of 4 bytes. Its B elements are rows 4 t + 2 s (+ 1) of column g.
//   - Unpadded, swizzled rows. As keeps rows of 16 floats: a quarter-warp's 16-byte loads (rows g
//     and g + 1, all 16 k) cover the 32 banks once. Bs keeps rows of BN floats, row k swizzled by
//     8 ((k / 4) % 4) columns (ScratchB): the 32 lanes' loads of rows 4 t + c at columns n0 + g
//     meet in no bank. Both keep 16-byte runs whole for the copies, whose quarter-warps write 128
//     contiguous bytes (As) or one swizzled group of 32 columns (Bs); and a buffer of 128x64x16
//     takes 12 KB, so three fit a team's scratch.
//   - The split rounds to nearest even: one F2FP instruction on sm_90, where mma_block's rounding
//     to nearest away takes a few integer ones; the split's bound is the same.
//
// Each fragment is loaded and split once a K block and used by every mma it takes part in, as in
// mma_block. CPU backends read the same layouts through ScratchA and ScratchB (product).
#pragma once

#include "tilemm/kernels/register_tiled_gpu.hpp"  // Quad: a 16-byte load
#include "tilemm/kernels/unroll.hpp"
#include "tilemm/kernels/warp/mma_fragment.hpp"

namespace tilemm::kernels {

/// A lane's fragments of a 16-deep float K block in the wide schedule: As[m][k] in rows of 16
/// floats, Bs laid out by ScratchB.
struct WideTf32 {
  using Frag = MmaFragment<float, 8>;
  static constexpr int kDepth = 16, kSteps = 2;

  /// Lane `lane`'s A elements of both k-steps of the m16 x 16 block at row m0 of As.
  KOKKOS_INLINE_FUNCTION static void load_a(const float* As, int m0, int lane,
                                            Frag::A (&a)[kSteps]) {
    const float* row = As + (m0 + lane / 4) * kDepth + 4 * (lane % 4);
    const Quad<float> upper = *reinterpret_cast<const Quad<float>*>(row);
    const Quad<float> lower = *reinterpret_cast<const Quad<float>*>(row + 8 * kDepth);
    TILEMM_UNROLL
    for (int s = 0; s < kSteps; ++s) {
      TILEMM_UNROLL
      for (int i = 0; i < Frag::kA; ++i) {  // element i: row g + 8 (i % 2), k 4 t + 2 s + i / 2
        a[s].v[i] = (i % 2 ? lower : upper).v[2 * s + i / 2];
      }
    }
  }
  /// Lane `lane`'s B elements of both k-steps of the 16 x n8 block at column n0 of Bs.
  KOKKOS_INLINE_FUNCTION static void load_b(const float* Bs, ScratchB at, int n0, int lane,
                                            Frag::B (&b)[kSteps]) {
    TILEMM_UNROLL
    for (int s = 0; s < kSteps; ++s) {
      TILEMM_UNROLL
      for (int i = 0; i < Frag::kB; ++i)  // element i: row 4 t + 2 s + i, column g
        b[s].v[i] = Bs[at(4 * (lane % 4) + 2 * s + i, n0 + lane / 4)];
    }
  }

#ifdef TILEMM_TENSOR_MMA
  /// acc += the K block's products of a warp's FM x FN fragments at (wm0, wn0).
  template <int FM, int FN>
  __device__ static void block(float (&acc)[FM][FN][Frag::kC], const float* As, const float* Bs,
                               ScratchB bt, int wm0, int wn0, int lane) {
    Frag::ReadyA a[FM][kSteps];
    Frag::ReadyB b[FN][kSteps];
    TILEMM_UNROLL
    for (int i = 0; i < FM; ++i) {
      Frag::A loaded[kSteps];
      load_a(As, wm0 + Frag::kM * i, lane, loaded);
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
