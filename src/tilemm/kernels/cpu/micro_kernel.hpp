// The CPU schedule's micro-kernel (blocking.hpp): an MR x NR block of C from a micro-panel of A~
// and one of B~ (packing.hpp), its accumulators held in vector registers for the whole depth.
// A plain host function.
//
//   acc[MR][NR / lanes] = 0                         MR rows of NR / lanes vector registers
//   for p < depth:
//     b[NR / lanes] = B~[p][0 : NR]                  whole vector loads
//     for i < MR:
//       acc[i] += A~[p][i] * b                       one scalar of A, broadcast into the FMAs
//   C[i][j] = alpha acc[i][j] + beta C[i][j]         for the rows and columns inside C; beta 0:
//                                                    C is not read
//
// C is row-major in the schedule's orientation (its lines are rows: C^T in LayoutLeft), so that a
// row of accumulators is stored by whole vector stores. With AVX-512, 24 of the 32 registers hold
// C: 12 rows of two in float (12x32), each step 24 FMAs on 2 vector loads and 12 broadcasts, and
// 8 rows of three in double (8x24), 24 FMAs on 3 loads and 8 broadcasts (host_vector.hpp). Where
// the compiler has no vector types (nvcc's host pass), the same loops run on arrays of scalars.
#pragma once

#include <cstddef>

#include "tilemm/kernels/host_vector.hpp"
#include "tilemm/kernels/unroll.hpp"

namespace tilemm::kernels::cpu {

/// The destination of a micro-kernel's block: C row-major with leading dimension ldc, its rows x
/// cols inside the matrix (the rest of the MR x NR block is not stored), and the scaling:
/// C = alpha acc + beta C, C not read where beta is 0.
template <class Scalar>
struct MicroTarget {
  Scalar* c = nullptr;
  std::ptrdiff_t ldc = 0;
  int rows = 0, cols = 0;
  Scalar alpha = 1, beta = 0;
};

/// C[i][j] = alpha acc + beta C[i][j] (beta 0: C not read), for the target's rows and columns.
template <int MR, int NR, class Scalar>
void store_edge(const Scalar (&acc)[MR][NR], const MicroTarget<Scalar>& t) {
  for (int i = 0; i < t.rows; ++i) {
    Scalar* row = t.c + i * t.ldc;
    for (int j = 0; j < t.cols; ++j) {
      row[j] = t.beta == Scalar(0) ? t.alpha * acc[i][j] : t.alpha * acc[i][j] + t.beta * row[j];
    }
  }
}

#ifdef TILEMM_HOST_VECTORS

/// The micro-kernel: `depth` steps of the micro-panels a (MR scalars a step) and b (NR a step),
/// into target t.
template <int MR, int NR, class Scalar>
void micro_kernel(int depth, const Scalar* a, const Scalar* b, const MicroTarget<Scalar>& t) {
  using V = HostVector<Scalar>;
  using Vec = typename V::type;
  constexpr int kLanes = V::lanes, kVectors = NR / kLanes;
  static_assert(NR % kLanes == 0, "a row of the micro-kernel is whole vector registers");
  // C's rows on their way into L1 while the products run: each is read or written at the end.
  // Every cache line of a row (64 bytes apart, and its last scalar's, for a row not aligned).
  constexpr int kLineScalars = 64 / int(sizeof(Scalar));
  for (int i = 0; i < t.rows; ++i) {
    const Scalar* row = t.c + i * t.ldc;
    TILEMM_UNROLL
    for (int j = 0; j < NR; j += kLineScalars) __builtin_prefetch(row + j, 1);
    __builtin_prefetch(row + NR - 1, 1);
  }
  Vec acc[MR][kVectors];
  TILEMM_UNROLL
  for (int i = 0; i < MR; ++i) {
    TILEMM_UNROLL
    for (int v = 0; v < kVectors; ++v) acc[i][v] = Vec{};
  }
  for (int p = 0; p < depth; ++p, a += MR, b += NR) {
    Vec b_row[kVectors];
    TILEMM_UNROLL
    for (int v = 0; v < kVectors; ++v) b_row[v] = V::load(b + v * kLanes);
    TILEMM_UNROLL
    for (int i = 0; i < MR; ++i) {
      const Scalar a_i = a[i];
      TILEMM_UNROLL
      for (int v = 0; v < kVectors; ++v) acc[i][v] += a_i * b_row[v];
    }
  }
  if (t.rows == MR && t.cols == NR) {
    TILEMM_UNROLL
    for (int i = 0; i < MR; ++i) {
      Scalar* row = t.c + i * t.ldc;
      TILEMM_UNROLL
      for (int v = 0; v < kVectors; ++v) {
        const Vec scaled = t.alpha * acc[i][v];
        V::store(row + v * kLanes,
                 t.beta == Scalar(0) ? scaled : scaled + t.beta * V::load(row + v * kLanes));
      }
    }
    return;
  }
  Scalar block[MR][NR];
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < kVectors; ++v) V::store(&block[i][v * kLanes], acc[i][v]);
  store_edge<MR, NR>(block, t);
}

#else

/// The micro-kernel on arrays of scalars, for compilers without vector types.
template <int MR, int NR, class Scalar>
void micro_kernel(int depth, const Scalar* a, const Scalar* b, const MicroTarget<Scalar>& t) {
  Scalar acc[MR][NR] = {};
  for (int p = 0; p < depth; ++p, a += MR, b += NR) {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] += a[i] * b[j];
  }
  store_edge<MR, NR>(acc, t);
}

#endif

}  // namespace tilemm::kernels::cpu
