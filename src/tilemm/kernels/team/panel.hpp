// The register-tiled kernel's panels (register_tiled/kernel.hpp): where a team's block of op(A) or
// op(B) lies in scratch, and how a thread walks over it in the order of memory.
#pragma once

#include <Kokkos_Core.hpp>

namespace tilemm::kernels {

/// A thread's walk over the items of a panel (`lines` lines of `per_line` items each, an item
/// `width` scalars long) in the order of memory: items r, r + team, r + 2 team, ... for thread
/// r, so that neighbouring threads read neighbouring addresses. It advances by additions alone:
/// a division per item would cost as much as the multiply-adds the item feeds.
struct PanelWalk {
  int lines, per_line, width, step_lines, step_items, line, item;
  KOKKOS_INLINE_FUNCTION PanelWalk(int rank, int team, int lines_, int per_line_, int width_)
      : lines(lines_),
        per_line(per_line_),
        width(width_),
        step_lines(team / per_line_),
        step_items(team % per_line_),
        line(rank / per_line_),
        item(rank % per_line_) {}
  KOKKOS_INLINE_FUNCTION bool more() const { return line < lines; }
  KOKKOS_INLINE_FUNCTION int pos() const { return item * width; }
  KOKKOS_INLINE_FUNCTION void next() {
    line += step_lines;
    item += step_items;
    if (item >= per_line) {
      item -= per_line;
      ++line;
    }
  }
};

/// A panel = op(X)[row0 : row0+rows, col0 : col0+cols], copied to scratch at `dst` with rows of
/// length `ld`, transposed when `transpose` (the A panel, so that a column of it is contiguous).
/// It is read as `lines` lines of `length` neighbours in X's memory (rows of op(X) when X is
/// contiguous along them, its columns otherwise); the distances that a line and a position
/// within it make in scratch are worked out once, not for each element.
template <class Scalar>
struct ScratchPanel {
  Scalar* dst;
  int row0, col0, rows, cols;
  bool along_cols;        // op(X) contiguous along its rows
  int lines, length;      // in X's memory order
  int dst_line, dst_pos;  // scratch distances: between lines, between neighbours in a line

  KOKKOS_INLINE_FUNCTION ScratchPanel(Scalar* dst_, int ld, bool transpose, int row0_, int col0_,
                                      int rows_, int cols_, bool along_cols_)
      : dst(dst_),
        row0(row0_),
        col0(col0_),
        rows(rows_),
        cols(cols_),
        along_cols(along_cols_),
        lines(along_cols_ ? rows_ : cols_),
        length(along_cols_ ? cols_ : rows_),
        dst_line(transpose != along_cols_ ? ld : 1),
        dst_pos(transpose != along_cols_ ? 1 : ld) {}

  KOKKOS_INLINE_FUNCTION Scalar& at(int line, int pos) const {
    return dst[line * dst_line + pos * dst_pos];
  }
  /// This thread's walk over the panel, in items of `width` neighbours. Its start divides by
  /// run-time extents (the compiler merges the two arms into one division even for a fixed
  /// tile), so a walk used every K block is made once, before the K loop.
  KOKKOS_INLINE_FUNCTION PanelWalk walk(int rank, int team, int width) const {
    // (A panel shorter than `width` gets one item a line: a walk that fetch() does not use.)
    return along_cols ? PanelWalk(rank, team, rows, cols < width ? 1 : cols / width, width)
                      : PanelWalk(rank, team, cols, rows < width ? 1 : rows / width, width);
  }
  /// Whether neighbours along a line are neighbours in scratch too.
  KOKKOS_INLINE_FUNCTION bool dst_along_lines() const { return dst_pos == 1; }
  template <class Op>
  KOKKOS_INLINE_FUNCTION bool inside(const Op& x) const {
    return row0 + rows <= x.rows() && col0 + cols <= x.cols();
  }
  /// Element (line, pos) of the panel, zero outside op(X).
  template <class Op>
  KOKKOS_INLINE_FUNCTION Scalar value(const Op& x, int line, int pos) const {
    const int i = row0 + (along_cols ? line : pos), j = col0 + (along_cols ? pos : line);
    return (i < x.rows() && j < x.cols()) ? x(i, j) : Scalar(0);
  }
};

}  // namespace tilemm::kernels
