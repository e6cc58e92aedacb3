// Where a warp finds its operands in team scratch (tensor-tiled): the team's block of op(A),
// BM x BK, and of op(B), BK x BN, each kept in the order in which the operand runs in memory, so
// that copies write its 16-byte runs as they lie and no operand is transposed on its way in.
//
//   an operand block X is r x k: A's rows r = m, or B's columns r = n (op(B) seen transposed)
//   X runs along k in memory  (Along::k):   scratch rows of k, X[r][k]   (A row-major in NN)
//   X runs along r in memory  (Along::mn):  scratch rows of r, X[k][r]   (B row-major in NN)
//   element (r, k) at  row * ld + (col ^ mask(row)),  (row, col) = (r, k) or (k, r)
//
// A warp's fragment loads take lane (g, t) = (lane / 4, lane % 4) to r = g (+ 8) and k = t (+ 4,
// + 8, ...) (mma_fragment.hpp), so each order keeps them free of bank conflicts by its row length
// or by a swizzle (mask) that moves whole 16-byte runs within a row:
// - rows of k: rows g = 0..7 must start in distinct quarters of the 32 banks; rows of BK + 4
//   floats or doubles do (BK = 16). Rows of 8 stay unpadded, their runs moved in every other pair
//   or quad of rows (rows of 8 doubles: runs reversed where r has bit 1 set, mask 6; of 8 floats:
//   the two runs swapped where r has bit 4, mask 4), so that the copies' quarter-warps write 128
//   contiguous bytes and three buffers of 128x64x8 fit a team's scratch. The wide schedule reads
//   rows of 16 floats 16 bytes a lane, which meet no conflict unpadded (wide_tf32.hpp).
// - rows of r: rows k = t = 0..3 must start in distinct quarters: rows of r + 8 floats or r + 4
//   doubles. The wide schedule reads 16-byte runs of rows 4 t + c instead, which start in the same
//   banks unpadded, so it swizzles by (k / 4) % 4: B's rows, a run a lane, move r by 8 ((k / 4) %
//   4) (flip 1: mask (k & 12) 2); A's, two neighbouring runs a lane, by 4 and 16 for its bits 0
//   and 1 (flip 2: mask (k & 4) | (k & 8) 2).
// The launch picks the order from the layout and the ops (tensor_tiled/launch.hpp); every kernel is
// compiled for the orientation of both of its operands.
#pragma once

#include <Kokkos_Core.hpp>

namespace tilemm::kernels {

/// Which way an operand's neighbours in memory run: along k, or along A's m or B's n.
enum class Along { k, mn };

/// The memory orientation of both operands, a kernel's compile-time choice.
template <Along A, Along B>
struct Orientation {
  static constexpr Along a = A, b = B;
};
using OrientationKN = Orientation<Along::k, Along::mn>;  // NN in LayoutRight, TT in LayoutLeft
using OrientationKK = Orientation<Along::k, Along::k>;
using OrientationNN = Orientation<Along::mn, Along::mn>;
using OrientationNK = Orientation<Along::mn, Along::k>;  // NN in LayoutLeft, TT in LayoutRight

/// How op(X) runs in memory: along k where op(A) is contiguous along its columns (rows of op(A)
/// are contiguous) or op(B) along its rows.
constexpr Along along_of_a(bool a_contiguous_along_cols) {
  return a_contiguous_along_cols ? Along::k : Along::mn;
}
constexpr Along along_of_b(bool b_contiguous_along_cols) {
  return b_contiguous_along_cols ? Along::mn : Along::k;
}
/// The op that gives op(A), or op(B), that orientation in a layout (`right`: LayoutRight):
/// transposed where the stored matrix runs the other way.
constexpr bool transposes_a(Along a, bool right) {
  return right != (a == Along::k);
}
constexpr bool transposes_b(Along b, bool right) {
  return right != (b == Along::mn);
}

/// Where element (r, k) of an operand block lies in scratch (see above): rows of `ld` scalars
/// along `along`, swizzled: rows of k XOR their column with `flip` where the row has bit
/// `flip_row`; rows of r XOR it with 8 ((k / 4) % 4) (flip 1) or with 4 and 16 for bits 0 and 1 of
/// (k / 4) % 4 (flip 2); flip 0: no swizzle.
struct OperandScratch {
  int ld;
  Along along = Along::mn;
  int flip = 0, flip_row = 2;
  KOKKOS_INLINE_FUNCTION constexpr OperandScratch(int ld_, Along along_ = Along::mn, int flip_ = 0,
                                                  int flip_row_ = 2)
      : ld(ld_), along(along_), flip(flip_), flip_row(flip_row_) {}
  /// The column of a scratch row XORed with this: whole 16-byte runs move, within the row.
  KOKKOS_INLINE_FUNCTION constexpr int mask(int row) const {
    if (along == Along::k) return row & flip_row ? flip : 0;
    return flip == 2 ? (row & 4) | (row & 8) * 2 : (row & 12) * 2 * flip;
  }
  /// The offset of (row, col) of scratch, swizzled.
  KOKKOS_INLINE_FUNCTION constexpr int place(int row, int col) const {
    return row * ld + (col ^ mask(row));
  }
  KOKKOS_INLINE_FUNCTION constexpr int operator()(int r, int k) const {
    return along == Along::k ? place(r, k) : place(k, r);
  }
};

}  // namespace tilemm::kernels
