// The CPU schedule's packed panels (blocking.hpp): a block of A or B copied into micro-panels in
// the order the micro-kernel reads them, zero past the matrix's edge. Plain host functions, free
// of Kokkos.
//
//   A~: micro-panels of MR rows; panel q holds rows q MR .. q MR + MR - 1 of the block, column by
//       column: A~[q][p][i] = A(q MR + i, p), MR scalars a step p of K
//   B~: micro-panels of NR columns; panel q holds columns q NR ..: B~[q][p][j] = B(p, q NR + j),
//       NR scalars a step p
//
// A block is read through its two strides, so that an op, a layout or a transposed problem is only
// another pair of strides (Strided): packing absorbs them, and the micro-kernel sees one form.
// Where a panel's steps are contiguous it is a copy; where its lines are, a transpose, done a
// vector's lanes of lines and steps at a time in registers (GCC 12's and Clang's
// __builtin_shufflevector), twice as fast as a line at a time on the Xeon of perf/README.md.
#pragma once

#include <cstddef>
#include <cstring>
#include <utility>

#include "tilemm/kernels/host_vector.hpp"

namespace tilemm::kernels::cpu {

#if defined(TILEMM_HOST_VECTORS) && defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define TILEMM_TRANSPOSE_BY_VECTORS 1
#endif
#endif

#ifdef TILEMM_TRANSPOSE_BY_VECTORS
/// One stage of an L x L transpose held in L vectors: rows i and i + h (i without the bit h)
/// exchange their blocks of h lanes. After the stages h = 1, 2, ..., L / 2, row j holds column j.
template <class Vec, int L, int H, std::size_t... K>
void exchange(Vec (&rows)[L], std::index_sequence<K...>) {
  for (int i = 0; i < L; ++i) {
    if (i & H) continue;
    const Vec a = rows[i], b = rows[i + H];
    rows[i] = __builtin_shufflevector(a, b, ((K & H) == 0 ? int(K) : int(L + K - H))...);
    rows[i + H] = __builtin_shufflevector(a, b, ((K & H) == 0 ? int(K + H) : int(L + K))...);
  }
}
template <class Vec, int L, int H = 1>
void transpose(Vec (&rows)[L]) {
  if constexpr (H < L) {
    exchange<Vec, L, H>(rows, std::make_index_sequence<L>());
    transpose<Vec, L, 2 * H>(rows);
  }
}

/// The lines first .. first + L - 1 of a whole panel of kWidth lines (fewer where the panel ends),
/// each contiguous along K (line i from src + i ld), at steps p .. p + L - 1: loaded as L vectors,
/// transposed in registers, and stored a step at a time.
template <int kWidth, int kFirst, class Scalar>
void pack_group(const Scalar* src, std::ptrdiff_t ld, int p, Scalar* panel) {
  using V = HostVector<Scalar>;
  using Vec = typename V::type;
  constexpr int L = V::lanes, kCount = kWidth - kFirst < L ? kWidth - kFirst : L;
  Vec rows[L];
  for (int i = 0; i < L; ++i) rows[i] = i < kCount ? V::load(src + (kFirst + i) * ld + p) : Vec{};
  transpose<Vec, L>(rows);
  for (int j = 0; j < L; ++j)
    std::memcpy(panel + (p + j) * kWidth + kFirst, &rows[j], kCount * sizeof(Scalar));
}
template <int kWidth, class Scalar, std::size_t... G>
void pack_lines_by_vectors(const Scalar* src, std::ptrdiff_t ld, int steps, Scalar* panel,
                           std::index_sequence<G...>) {
  constexpr int L = HostVector<Scalar>::lanes;
  for (int p = 0; p < steps; p += L) (pack_group<kWidth, int(G) * L>(src, ld, p, panel), ...);
}
/// A whole panel of kWidth lines, each contiguous along K, `steps` deep (a multiple of the
/// vector's lanes), L lines at a time (pack_group).
template <int kWidth, class Scalar>
void pack_lines_by_vectors(const Scalar* src, std::ptrdiff_t ld, int steps, Scalar* panel) {
  constexpr int L = HostVector<Scalar>::lanes;
  pack_lines_by_vectors<kWidth>(src, ld, steps, panel,
                                std::make_index_sequence<(kWidth + L - 1) / L>());
}
#endif

/// A read-only matrix X by its strides: X(i, j) = data[i rs + j cs].
template <class Scalar>
struct Strided {
  const Scalar* data = nullptr;
  std::ptrdiff_t rs = 0, cs = 0;

  const Scalar& operator()(std::ptrdiff_t i, std::ptrdiff_t j) const {
    return data[i * rs + j * cs];
  }
  /// X^T over the same memory.
  Strided transposed() const { return {data, cs, rs}; }
  /// X from (i, j) on.
  Strided from(std::ptrdiff_t i, std::ptrdiff_t j) const {
    return {data + i * rs + j * cs, rs, cs};
  }
};

/// Packs `count` of a block's micro-panels of `width` lines (rows of A, columns of B), from micro-
/// panel `first`, each `depth` deep: dst gets panel first + q at dst + (first + q) width depth.
/// x(line, p) is the block's element in line `line` at step p of K; the block has `lines` lines,
/// and a panel's lines past them are zero. Where a step is contiguous (x.rs == 1), the panel is
/// written step by step, each a contiguous copy; where a line is (x.cs == 1), by vectors
/// transposed in registers where it can (pack_lines_by_vectors), else line by line.
template <int kWidth, class Scalar>
void pack_panels(const Strided<Scalar>& x, int lines, int depth, int first, int count,
                 Scalar* dst) {
  for (int q = first; q < first + count; ++q) {
    Scalar* panel = dst + std::ptrdiff_t(q) * kWidth * depth;
    const int line0 = q * kWidth;
    const int whole = lines - line0 < kWidth ? lines - line0 : kWidth;
    if (whole < kWidth) {
      for (int p = 0; p < depth; ++p)
        for (int i = whole; i < kWidth; ++i) panel[p * kWidth + i] = Scalar(0);
    }
    if (x.rs == 1 && whole == kWidth) {
      // Each step's kWidth scalars are neighbours: a copy the compiler makes of vectors.
      for (int p = 0; p < depth; ++p) {
        const Scalar* src = &x(line0, p);
        Scalar* out = panel + p * kWidth;
        for (int i = 0; i < kWidth; ++i) out[i] = src[i];
      }
    } else {
      int done = 0;
#ifdef TILEMM_TRANSPOSE_BY_VECTORS
      if (x.cs == 1 && whole == kWidth) {
        done = depth / HostVector<Scalar>::lanes * HostVector<Scalar>::lanes;
        pack_lines_by_vectors<kWidth>(&x(line0, 0), x.rs, done, panel);
      }
#endif
      // Each line's steps are neighbours (or neither is): the lines in turn, each read in order.
      for (int i = 0; i < whole; ++i) {
        const Strided<Scalar> line = x.from(line0 + i, 0);
        Scalar* out = panel + i;
        if (line.cs == 1) {
          for (int p = done; p < depth; ++p) out[p * kWidth] = line.data[p];
        } else {
          for (int p = done; p < depth; ++p) out[p * kWidth] = line(0, p);
        }
      }
    }
  }
}

/// A~ from the rows x depth block a (its micro-panels first .. first + count - 1, MR rows each).
template <int MR, class Scalar>
void pack_a(const Strided<Scalar>& a, int rows, int depth, int first, int count, Scalar* dst) {
  pack_panels<MR>(a, rows, depth, first, count, dst);
}

/// B~ from the depth x cols block b (its micro-panels first .. first + count - 1, NR columns
/// each): B's columns are A's rows of the transposed block.
template <int NR, class Scalar>
void pack_b(const Strided<Scalar>& b, int cols, int depth, int first, int count, Scalar* dst) {
  pack_panels<NR>(b.transposed(), cols, depth, first, count, dst);
}

}  // namespace tilemm::kernels::cpu
