// The process grid and the 2D block-cyclic distribution, with ScaLAPACK's layout: the ranks form a
// Pr x Pc grid in row-major order (BLACS' default, rank = row * Pc + col); a matrix is cut into
// MB x NB blocks (here MB = NB), and block (I, J) lives on process (I mod Pr, J mod Pc), which
// keeps its blocks in order, packed, as one local matrix.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>

namespace tilemm::distributed {

/// One dimension of a block-cyclic distribution: `global` indices in blocks of `block`, dealt
/// round-robin to `procs` processes, as seen from process `me`.
struct BlockCyclic {
  std::int64_t global = 0;
  std::int64_t block = 1;
  int procs = 1, me = 0;

  /// The indices process `me` holds (ScaLAPACK's NUMROC).
  std::int64_t local() const {
    const std::int64_t blocks = global / block;
    std::int64_t count = blocks / procs * block;
    const std::int64_t extra = blocks % procs;
    if (me < extra) {
      count += block;
    } else if (me == extra) {
      count += global % block;
    }
    return count;
  }
  /// The global index of local index `l`.
  std::int64_t to_global(std::int64_t l) const {
    return (l / block * procs + me) * block + l % block;
  }
  /// The process that holds global index `g`, and its local index there.
  int owner(std::int64_t g) const { return static_cast<int>(g / block % procs); }
  std::int64_t to_local(std::int64_t g) const { return g / block / procs * block + g % block; }
};

/// The most square grid of `ranks` processes, Pr <= Pc (ScaLAPACK's usual choice).
inline std::pair<int, int> squarest_grid(int ranks) {
  int rows = 1;
  for (int r = 1; r * r <= ranks; ++r) {
    if (ranks % r == 0) rows = r;
  }
  return {rows, ranks / rows};
}

/// A Pr x Pc grid of the ranks of `world`, with a communicator along this process's row (its
/// ranks numbered by grid column) and one along its column (numbered by grid row).
class ProcessGrid {
 public:
  ProcessGrid(MPI_Comm world, int rows, int cols) : rows_(rows), cols_(cols) {
    int rank = 0;
    MPI_Comm_rank(world, &rank);
    row_ = rank / cols;
    col_ = rank % cols;
    MPI_Comm_split(world, row_, col_, &row_comm_);
    MPI_Comm_split(world, col_, row_, &col_comm_);
  }
  ~ProcessGrid() {
    MPI_Comm_free(&row_comm_);
    MPI_Comm_free(&col_comm_);
  }
  ProcessGrid(const ProcessGrid&) = delete;
  ProcessGrid& operator=(const ProcessGrid&) = delete;

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int row() const { return row_; }
  int col() const { return col_; }
  MPI_Comm row_comm() const { return row_comm_; }
  MPI_Comm col_comm() const { return col_comm_; }
  /// "2x2"
  std::string text() const { return std::to_string(rows_) + "x" + std::to_string(cols_); }

 private:
  int rows_, cols_, row_ = 0, col_ = 0;
  MPI_Comm row_comm_ = MPI_COMM_NULL, col_comm_ = MPI_COMM_NULL;
};

}  // namespace tilemm::distributed
