// A rank's pieces of the matrices of a distributed problem (block_cyclic.hpp's layout): filled by
// the same value-by-position rule as one process's matrices (matrices.hpp), so that every grid
// multiplies the same A, B and C0, or read from the same .npy files; panels copied out of them for
// SUMMA's broadcasts; and the whole C gathered on rank 0.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tilemm/distributed/grid.hpp"
#include "tilemm/matrices.hpp"
#include "tilemm/npy.hpp"
#include "tilemm/problem.hpp"

namespace tilemm::distributed {

/// The MPI type of Scalar.
template <class Scalar>
MPI_Datatype mpi_type() {
  return std::is_same<Scalar, float>::value ? MPI_FLOAT : MPI_DOUBLE;
}

/// A count MPI takes (an int), or a failure that says which message would not fit one.
inline int mpi_count(std::int64_t count, const char* what) {
  if (count > std::int64_t(INT32_MAX)) {
    throw std::runtime_error(std::string(what) + " of " + std::to_string(count) +
                             " elements is more than one MPI message takes; use a smaller block "
                             "or panel, or more ranks");
  }
  return static_cast<int>(count);
}

/// The part of a stored matrix a rank holds, as plain numbers a kernel can capture: local (i, j)
/// is global (row(i), col(j)) of a matrix with `cols` columns.
struct LocalPiece {
  std::int64_t row_block = 1, col_block = 1;
  int row_procs = 1, row_me = 0, col_procs = 1, col_me = 0;
  std::int64_t cols = 0;  // of the global matrix

  static LocalPiece of(const BlockCyclic& rows, const BlockCyclic& cols, std::int64_t global_cols) {
    return {rows.block, cols.block, rows.procs, rows.me, cols.procs, cols.me, global_cols};
  }
  KOKKOS_INLINE_FUNCTION static std::int64_t global(std::int64_t l, std::int64_t block, int procs,
                                                    int me) {
    return (l / block * procs + me) * block + l % block;
  }
  /// The position of local (i, j) in the global matrix, row-major, as fill_random numbers it.
  KOKKOS_INLINE_FUNCTION std::int64_t index(std::int64_t i, std::int64_t j) const {
    return global(i, row_block, row_procs, row_me) * cols + global(j, col_block, col_procs, col_me);
  }
};

/// x(i, j) = the value of global element piece.index(i, j) of matrix `id`, or of its transpose
/// with `transposed` (x holds a piece of op(X), X stored as the global matrix of `piece`).
template <class ExecSpace, class View>
void fill_piece(const View& x, std::uint64_t seed, MatrixId id, const LocalPiece& piece,
                bool transposed) {
  using Scalar = typename View::non_const_value_type;
  for_each_index<ExecSpace>(
      "tilemm::fill_piece", x.extent(0), x.extent(1),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        const std::int64_t e = transposed ? piece.index(j, i) : piece.index(i, j);
        x(i, j) = static_cast<Scalar>(uniform_value(seed, id, e));
      });
}

/// x = this rank's piece of the matrix in .npy file `file`: the elements of the rows `rows` and
/// columns `cols` hold, at their local places (transposed in x with `transposed`), copied out of
/// the file mapped when the spec was read. A rank reads its own blocks only; rank 0 alone read the
/// whole file, for its SHA-256 and its scan for NaN and Inf (cli/main.cpp).
template <class ExecSpace, class View>
void read_piece(const View& x, const NpySource& file, const BlockCyclic& rows,
                const BlockCyclic& cols, bool transposed) {
  using Scalar = typename View::non_const_value_type;
  npy::check_unchanged(*file.file, file.path);  // as Workspace::fill (workspace.hpp)
  const auto host = Kokkos::create_mirror_view(x);
  // Each thread walks the file forward: the outer loop takes the file's slow index (rows in C
  // order, columns in Fortran order).
  const bool fortran = file.fortran_order;
  const BlockCyclic& outer = fortran ? cols : rows;
  const BlockCyclic& inner = fortran ? rows : cols;
  const std::int64_t stride = fortran ? file.rows : file.cols, inner_local = inner.local();
  Kokkos::parallel_for(
      "tilemm::read_piece",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, outer.local()),
      [&](const std::int64_t o) {
        const std::int64_t first = outer.to_global(o) * stride;
        for (std::int64_t l = 0; l < inner_local; ++l) {
          const auto v = static_cast<Scalar>(npy::element(*file.file, first + inner.to_global(l)));
          const std::int64_t i = fortran ? l : o, j = fortran ? o : l;
          (transposed ? host(j, i) : host(i, j)) = v;
        }
      });
  Kokkos::fence();
  npy::check_unchanged(*file.file, file.path);
  Kokkos::deep_copy(x, host);
}

/// panel = x(rows [r0, r0 + panel rows), cols [c0, c0 + panel cols)). Consecutive indices walk
/// the layout's contiguous dimension, so that a GPU's neighbouring threads touch neighbouring
/// elements of both views.
template <class ExecSpace, class Panel, class View>
void copy_panel(const View& x, std::int64_t r0, std::int64_t c0, const Panel& panel) {
  const bool left = std::is_same<typename Panel::array_layout, Kokkos::LayoutLeft>::value;
  const std::int64_t rows = panel.extent(0), cols = panel.extent(1);
  for_each_index<ExecSpace>(
      "tilemm::copy_panel", left ? cols : rows, left ? rows : cols,
      KOKKOS_LAMBDA(const std::int64_t slow, const std::int64_t fast) {
        const std::int64_t i = left ? fast : slow, j = left ? slow : fast;
        panel(i, j) = x(r0 + i, c0 + j);
      });
}

/// The whole of a distributed m x n matrix on rank 0 of `world`, in `layout_left` order (column-
/// major) or row-major: each rank sends its piece `local` (a host view), rank 0 puts each element
/// in its place. Other ranks get an empty vector. A collective.
template <class Scalar, class HostView>
std::vector<Scalar> gather_whole(MPI_Comm world, const ProcessGrid& grid, const HostView& local,
                                 std::int64_t m, std::int64_t n, std::int64_t block,
                                 bool layout_left) {
  std::vector<Scalar> mine;
  mine.reserve(local.extent(0) * local.extent(1));
  for (std::size_t i = 0; i < local.extent(0); ++i) {
    for (std::size_t j = 0; j < local.extent(1); ++j) mine.push_back(local(i, j));
  }
  int me = 0, ranks = 1;
  MPI_Comm_rank(world, &me);
  MPI_Comm_size(world, &ranks);
  std::vector<int> counts(ranks), offsets(ranks);
  std::int64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    const BlockCyclic rows{m, block, grid.rows(), r / grid.cols()};
    const BlockCyclic cols{n, block, grid.cols(), r % grid.cols()};
    counts[r] = mpi_count(rows.local() * cols.local(), "a rank's piece of C");
    offsets[r] = mpi_count(total, "C");
    total += counts[r];
  }
  std::vector<Scalar> all(me == 0 ? total : 0), whole(me == 0 ? m * n : 0);
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), mpi_type<Scalar>(), all.data(),
              counts.data(), offsets.data(), mpi_type<Scalar>(), 0, world);
  if (me != 0) return whole;
  for (int r = 0; r < ranks; ++r) {
    const BlockCyclic rows{m, block, grid.rows(), r / grid.cols()};
    const BlockCyclic cols{n, block, grid.cols(), r % grid.cols()};
    const std::int64_t lm = rows.local(), ln = cols.local();
    for (std::int64_t i = 0; i < lm; ++i) {
      for (std::int64_t j = 0; j < ln; ++j) {
        const std::int64_t gi = rows.to_global(i), gj = cols.to_global(j);
        whole[layout_left ? gj * m + gi : gi * n + gj] = all[offsets[r] + i * ln + j];
      }
    }
  }
  return whole;
}

}  // namespace tilemm::distributed
