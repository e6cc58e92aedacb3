// register-tiled on a CPU core: the shared schedule of register_tiled/kernel.hpp, its thread tile's
// rows held as vector registers.
//
//   for each of my thread tiles t:                the core's multiply() for one thread tile
//     rows[TM][TN / lanes] = Cs[t]                 vector registers
//     for kk < BK:
//       b_row[TN / lanes] = Bs[kk][cols of t]      whole vector loads
//       for i < TM:
//         rows[i] += A(row i of t, k0 + kk) * b_row    one scalar of A, broadcast into the FMAs
//     Cs[t] = rows
//
// The transformations of the core, and why:
// - A row of a thread tile is whole vector registers (host_vector.hpp), and the thread tiles are
//   the CPU's own (rows of vector registers): written with arrays of scalars, the outer
//   product's vector code is the compiler's choice, and it chose badly on AVX-512.
// - Each value of A is read alone, from scratch into the instruction that broadcasts it, so the A
//   panel need not be transposed: it keeps op(A)'s memory order (rows of op(A) where they are
//   contiguous), and the team's load copies it with vector instructions.
// Where the compiler has no vector types (nvcc's CPU backends), the core runs as it is.
#pragma once

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/host_vector.hpp"
#include "tilemm/kernels/unroll.hpp"

namespace tilemm::kernels {

template <class ExecSpace, class Scalar, class Layout, class Variant>
struct RegisterTiledGemm;  // register_tiled/kernel.hpp

template <class ExecSpace, class Scalar, class Layout, class Variant>
struct RegisterTiledCpu {
  using Kernel = RegisterTiledGemm<ExecSpace, Scalar, Layout, Variant>;
  using Place = typename Kernel::Place;
  static constexpr int TM = Variant::tm, TN = Variant::tn;
  static constexpr int kPad = Kernel::kPad;

  // A row of a thread tile is whole vector registers where the compiler has vector types and the
  // row fills them.
#ifdef TILEMM_HOST_VECTORS
  static constexpr int kLanes = Kernel::kOnCpu ? HostVector<Scalar>::lanes : 1;
#else
  static constexpr int kLanes = 1;
#endif
  static constexpr bool kVectorRows = !Kernel::kPipelined && kLanes > 1 && TN % kLanes == 0;

  /// Whether the A panel keeps rows of op(A) in scratch: with vector rows, where op(A)'s rows are
  /// contiguous. (Elsewhere it is transposed, so that a column of it is contiguous for a GPU
  /// thread's strips.)
  KOKKOS_INLINE_FUNCTION static bool a_rows_in_scratch(const Kernel& k) {
    return kVectorRows && k.op_a().contiguous_along_cols();
  }

#ifdef TILEMM_HOST_VECTORS
  /// The outer products of one K block (the core's multiply()), a row of the thread tile in
  /// vector registers: per step, TN / kLanes vector loads of B and a scalar of A for each row,
  /// broadcast from scratch into that row's FMAs.
  static void multiply(const Kernel& k, Scalar (&acc)[TM][TN], const Scalar* As, const Scalar* Bs,
                       const Place& p) {
    return a_rows_in_scratch(k) ? multiply_rows<true>(k, acc, As, Bs, p)
                                : multiply_rows<false>(k, acc, As, Bs, p);
  }
  template <bool kRowsOfA>
  static void multiply_rows(const Kernel& k, Scalar (&acc)[TM][TN], const Scalar* As,
                            const Scalar* Bs, const Place& p) {
    using V = HostVector<Scalar>;
    constexpr int kVectors = TN / kLanes;
    typename V::type rows[TM][kVectors];
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      TILEMM_UNROLL
      for (int v = 0; v < kVectors; ++v) rows[i][v] = V::load(&acc[i][kLanes * v]);
    }
    // A thread tile of the shared schedule is contiguous. Its value of A in row i at step kk:
    // a[i * along_m] with a moved by along_k a step.
    const int lda = kRowsOfA ? k.bk() + kPad : k.bm() + kPad, ldb = k.bn() + kPad;
    const int along_m = kRowsOfA ? lda : 1, along_k = kRowsOfA ? 1 : lda;
    const Scalar* a = As + p.m * along_m;
    const Scalar* b = Bs + p.n;
    for (int kk = 0; kk < k.bk(); ++kk, a += along_k, b += ldb) {
      typename V::type b_row[kVectors];
      TILEMM_UNROLL
      for (int v = 0; v < kVectors; ++v) b_row[v] = V::load(b + kLanes * v);
      TILEMM_UNROLL
      for (int i = 0; i < TM; ++i) {
        const Scalar a_i = a[i * along_m];
        TILEMM_UNROLL
        for (int v = 0; v < kVectors; ++v) rows[i][v] += a_i * b_row[v];
      }
    }
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      TILEMM_UNROLL
      for (int v = 0; v < kVectors; ++v) V::store(&acc[i][kLanes * v], rows[i][v]);
    }
  }
#endif
};

}  // namespace tilemm::kernels
