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
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilemm {
class InputStream;
}

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

/// A whole .npy file, read once: its bytes serve the checks, the SHA-256 and the data. A regular
/// file is mapped (its pages are the system's file cache, which a memory limit can reclaim, rather
/// than memory of the process), and kept open to tell a change in place; a pipe's bytes are held.
struct File {
  Header header;
  std::string_view bytes;                     // the whole file: prefix, header and array data
  std::shared_ptr<const void> owner;          // the mapping or the held bytes
  std::shared_ptr<const InputStream> source;  // the file as opened
  const char* data() const { return bytes.data() + header.data_offset; }
};

/// Parses and checks a whole file held in memory (`bytes` of `size`). Throws std::invalid_argument
/// with the reason when the header is malformed or holds anything after its dictionary but the
/// padding, the dtype is not float32/float64 little-endian, or the data is shorter or longer than
/// the header's array.
Header parse(const char* bytes, std::size_t size);

/// Maps a regular file, or reads a pipe once (input_file.hpp), and parses it. Reads no more than
/// the header promises and one byte beyond, so that an endless pipe cannot fill the memory. Throws
/// std::invalid_argument (as parse()) or std::runtime_error (the file cannot be opened or read, or
/// it is a folder, a device or a pipe no process writes to).
File read(const std::string& path);

/// Throws std::runtime_error naming `path` when the regular file behind `file` was written in
/// place since it was read: its mapped bytes, which the run converts into a matrix, may then differ
/// from those checked and hashed. Called before and after each conversion.
void check_unchanged(const File& file, const std::string& path);

/// What for_each_piece() hands a piece to: `count` values converted to double, `first` the index
/// of values[0] in the file's own element order. Returns false to stop.
using PieceReader = std::function<bool(const double* values, std::size_t first, std::size_t count)>;

/// Hands the array data of a 2-D file to `take` in the file's own element order, in pieces of at
/// most 2^17 elements (1 MiB of double), so that no converted copy of a large file is held.
void for_each_piece(const File& file, const PieceReader& take);

/// Where element `e` of a rows x cols array in a file's element order (row-major unless
/// fortran_order) lies: (row, column).
inline std::pair<std::int64_t, std::int64_t> file_order_position(std::int64_t e, std::int64_t rows,
                                                                 std::int64_t cols,
                                                                 bool fortran_order) {
  return fortran_order ? std::pair{e % rows, e / rows} : std::pair{e / cols, e % cols};
}

/// Element `e` of the array data, in the file's own element order, as a double: for a reader that
/// takes some of the elements only (a rank of a distributed run its blocks). Copied, not cast: the
/// data of a file need not be aligned.
inline double element(const File& file, std::int64_t e) {
  if (file.header.item_bytes() == 8) {
    double v;
    std::memcpy(&v, file.data() + e * 8, 8);
    return v;
  }
  float v;
  std::memcpy(&v, file.data() + e * 4, 4);
  return v;
}

/// The array data as doubles, in the file's own element order.
std::vector<double> values(const File& file);

/// What one pass over a file's values finds: the index, in the file's own element order, of the
/// first element that is NaN or infinite (-1 when every element is finite), and the largest
/// magnitude of the finite elements before it.
struct Scan {
  std::int64_t first_non_finite = -1;
  double largest = 0;
};
Scan scan(const File& file);

/// Writes a 2-D array atomically (a temporary file renamed into place). `data` holds rows*cols
/// elements in row-major order when !fortran_order, column-major otherwise.
void write(const std::string& path, const float* data, std::int64_t rows, std::int64_t cols,
           bool fortran_order);
void write(const std::string& path, const double* data, std::int64_t rows, std::int64_t cols,
           bool fortran_order);

}  // namespace tilemm::npy
