// The process grid of an MPI run: the ranks form a Pr x Pc grid in row-major order (BLACS'
// default, rank = row * Pc + col), with a communicator along each process row and column.
#pragma once

#include <mpi.h>

#include <string>

#include "tilemm/distributed/block_cyclic.hpp"

namespace tilemm::distributed {

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
