// numpy's .npy format (NEP 1, versions 1.0-3.0) for 2-D float32/float64 little-endian arrays.
//
// Why not a library: the .npy reader that Debian packages for C++ (xtensor's xnpy) trusts the file:
// it neither checks the header length against the file nor notices a truncated array, and tilemm
// must turn every malformed file into a clear error. The format is one short header and raw data,
// so the strict reader below is small; it is fuzzed (tests/fuzz) and round-trip tested against
// numpy's own output (tests/data).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tilemm::npy {

struct Header {
  std::string descr;  // "<f4" or "<f8"
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;  // bytes before the array data

  std::size_t item_bytes() const { return descr == "<f4" ? 4 : 8; }
  /// Elements: the product of `shape` (std::invalid_argument if it does not fit in 63 bits).
  std::int64_t count() const;
};

/// Parses a header held in memory (`bytes` is the start of a file, `file_bytes` its whole size).
/// Throws std::invalid_argument with the reason when the header is malformed, the dtype is not
/// float32/float64 little-endian, or the file is shorter than its array.
Header parse_header(const char* bytes, std::size_t available, std::size_t file_bytes);

/// Reads and checks the header of a file. Throws std::invalid_argument (as above) or
/// std::runtime_error (cannot open or read the file, or it is not a regular file: a folder, a
/// device or a pipe).
Header read_header(const std::string& path);

/// What read_pieces() hands a piece to: `count` values converted to double, `first` the index of
/// values[0] in the file's own element order. Returns false to stop reading.
using PieceReader = std::function<bool(const double* values, std::size_t first, std::size_t count)>;

/// Reads the array data of a 2-D file in the file's own element order, in pieces of at most 2^17
/// elements (1 MiB of double), so that a large file is read without being held. Checks the file's
/// size against `header` again first (the file may have changed since the header was read):
/// throws std::invalid_argument when it no longer holds the array, std::runtime_error when it
/// cannot be read.
void read_pieces(const std::string& path, const Header& header, const PieceReader& take);

/// Where element `e` of a rows x cols array in a file's element order (row-major unless
/// fortran_order) lies: (row, column).
inline std::pair<std::int64_t, std::int64_t> file_order_position(std::int64_t e, std::int64_t rows,
                                                                 std::int64_t cols,
                                                                 bool fortran_order) {
  return fortran_order ? std::pair{e % rows, e / rows} : std::pair{e / cols, e % cols};
}

/// The array data of a 2-D file as doubles, in the file's own element order (read_pieces()).
std::vector<double> read_data(const std::string& path, const Header& header);

/// The index, in the file's own element order, of the first element that is NaN or infinite; -1
/// when every element is finite (read_pieces()).
std::int64_t first_non_finite(const std::string& path, const Header& header);

/// Writes a 2-D array atomically (a temporary file renamed into place). `data` holds rows*cols
/// elements in row-major order when !fortran_order, column-major otherwise.
void write(const std::string& path, const float* data, std::int64_t rows, std::int64_t cols,
           bool fortran_order);
void write(const std::string& path, const double* data, std::int64_t rows, std::int64_t cols,
           bool fortran_order);

}  // namespace tilemm::npy
