#include "tilemm/npy.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "tilemm/atomic_file.hpp"

namespace tilemm::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;
// No real matrix header needs more; a larger length is a corrupt file, not a reason to allocate.
constexpr std::size_t kMaxHeaderBytes = 1 << 16;
constexpr std::int64_t kMaxExtent = std::numeric_limits<std::int32_t>::max();

[[noreturn]] void fail(const std::string& why) {
  throw std::invalid_argument(why);
}

/// Reads the header text: a Python dict literal such as
///   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
/// Only strings, True/False and tuples of non-negative integers occur as values.
class DictParser {
 public:
  explicit DictParser(std::string text) : s_(std::move(text)) {}

  Header parse() {
    Header h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        h.descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        fail("header has an unknown key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      if (peek() != '}') fail("header: expected ',' or '}' at offset " + std::to_string(pos_));
    }
    ++pos_;
    if (!have_descr || !have_order || !have_shape) {
      fail("header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return h;
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) {
      fail(std::string("header: expected '") + c + "' at offset " + std::to_string(pos_));
    }
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("header: expected a quoted string");
    const std::size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail("header: unterminated string");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail("header: 'fortran_order' must be True or False");
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> dims;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("header: 'shape' must be a tuple of integers");
      std::int64_t value = 0;
      while (peek() >= '0' && peek() <= '9') {
        value = value * 10 + (peek() - '0');
        if (value > kMaxExtent) fail("header: a dimension of 'shape' is larger than 2^31-1");
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long suffix
      dims.push_back(value);
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        fail("header: malformed 'shape' tuple");
      }
      if (dims.size() > 32) fail("header: 'shape' has too many dimensions");
    }
    ++pos_;
    return dims;
  }

  std::string s_;
  std::size_t pos_ = 0;
};

std::uint32_t little_endian(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

/// Fails unless a file of `file_bytes` holds the whole array that `h` describes.
void check_holds_data(const Header& h, std::size_t file_bytes) {
  // Each extent is below 2^31, so the element count fits in 63 bits, but the byte count of a
  // float64 array need not fit in 64: compare elements, not bytes, so that no product wraps round
  // (a wrapped byte count let a 64-byte file claim 2^61 elements:
  // tests/fuzz/corpus/npy/regression-shape-bytes-wrap.npy).
  const std::size_t elements = static_cast<std::size_t>(h.count());
  const std::size_t data_bytes = file_bytes > h.data_offset ? file_bytes - h.data_offset : 0;
  if (elements > data_bytes / h.item_bytes()) {
    const std::string promised =
        elements <= std::numeric_limits<std::size_t>::max() / h.item_bytes()
            ? std::to_string(elements * h.item_bytes())
            : "more than 2^64";
    fail("truncated: the header promises " + promised + " bytes of data, the file has " +
         std::to_string(data_bytes));
  }
}

std::ifstream open_or_throw(const std::string& path) {
  // Only a regular file has a size to check the header against, and can be read twice (header
  // at spec time, data at run time): a folder, a device or a pipe is refused here.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw std::runtime_error("cannot read '" + path + "': " +
                             (std::filesystem::is_directory(status)
                                  ? "it is a folder"
                                  : "not a regular file (a device, a pipe or a socket)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  return in;
}

template <class T>
void write_impl(const std::string& path, const T* data, std::int64_t rows, std::int64_t cols,
                bool fortran_order) {
  std::ostringstream dict;
  dict << "{'descr': '" << (sizeof(T) == 4 ? "<f4" : "<f8")
       << "', 'fortran_order': " << (fortran_order ? "True" : "False") << ", 'shape': (" << rows
       << ", " << cols << "), }";
  std::string header = dict.str();
  // Pad with spaces and end with '\n' so that the data starts on a 64-byte boundary (NEP 1).
  const std::size_t prefix = kMagicBytes + 2 + 2;
  const std::size_t total = ((prefix + header.size() + 1 + 63) / 64) * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');
  write_file_atomically(path, [&](std::ostream& out) {
    out.write(kMagic, kMagicBytes);
    const char version[2] = {1, 0};
    out.write(version, 2);
    const char length[2] = {static_cast<char>(header.size() & 0xff),
                            static_cast<char>((header.size() >> 8) & 0xff)};
    out.write(length, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(data),
              static_cast<std::streamsize>(sizeof(T) * rows * cols));
  });
}

}  // namespace

std::int64_t Header::count() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) fail("'shape' holds more than 2^63 elements");
  }
  return n;
}

Header parse_header(const char* bytes, std::size_t available, std::size_t file_bytes) {
  const auto* u = reinterpret_cast<const unsigned char*>(bytes);
  if (available < kMagicBytes + 2 || std::memcmp(bytes, kMagic, kMagicBytes) != 0) {
    fail("not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = u[kMagicBytes];
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3) fail("unsupported .npy version " + std::to_string(major));
  const std::size_t prefix = kMagicBytes + 2 + length_bytes;
  if (available < prefix) fail("truncated .npy header");
  const std::size_t header_bytes =
      little_endian(u + kMagicBytes + 2, static_cast<int>(length_bytes));
  if (header_bytes > kMaxHeaderBytes) fail("implausible .npy header length");
  if (available < prefix + header_bytes) fail("truncated .npy header");

  Header h = DictParser(std::string(bytes + prefix, header_bytes)).parse();
  h.data_offset = prefix + header_bytes;

  if (h.descr.size() == 3 && h.descr[0] == '>') {
    fail("dtype '" + h.descr + "' is big-endian; tilemm reads little-endian float32/float64");
  }
  if (h.descr != "<f4" && h.descr != "<f8") {
    fail("dtype '" + h.descr + "' is not float32 ('<f4') or float64 ('<f8')");
  }
  if (h.shape.size() != 2) {
    fail("array has " + std::to_string(h.shape.size()) + " dimensions; a matrix needs 2");
  }
  check_holds_data(h, file_bytes);
  return h;
}

Header read_header(const std::string& path) {
  std::ifstream in = open_or_throw(path);
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  std::vector<char> head(std::min<std::size_t>(size, kMagicBytes + 2 + 4 + kMaxHeaderBytes));
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  return parse_header(head.data(), head.size(), size);
}

namespace {
/// The file opened at its data, for a reader named `reader`. The file may have changed since its
/// header was read: its size is checked again before anything the header promises is allocated.
std::ifstream open_data(const std::string& path, const Header& header, const char* reader) {
  if (header.shape.size() != 2 || (header.descr != "<f4" && header.descr != "<f8")) {
    fail(std::string(reader) + " takes the header of a 2-D float32 or float64 array");
  }
  std::ifstream in = open_or_throw(path);
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(in.tellg());
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  check_holds_data(header, size);
  in.seekg(static_cast<std::streamoff>(header.data_offset));
  return in;
}
}  // namespace

namespace {
template <class Scalar>
void read_pieces_of(std::ifstream& in, const std::string& path, std::size_t n,
                    const PieceReader& take) {
  constexpr std::size_t kPiece = std::size_t(1) << 17;
  std::vector<Scalar> piece(std::min(n, kPiece));
  std::vector<double> converted(std::is_same_v<Scalar, double> ? 0 : piece.size());
  for (std::size_t done = 0; done < n;) {
    const std::size_t count = std::min(kPiece, n - done);
    in.read(reinterpret_cast<char*>(piece.data()),
            static_cast<std::streamsize>(count * sizeof(Scalar)));
    if (!in) throw std::runtime_error("cannot read the data of '" + path + "' (truncated?)");
    const double* values = nullptr;
    if constexpr (std::is_same_v<Scalar, double>) {
      values = piece.data();
    } else {
      std::copy(piece.begin(), piece.begin() + count, converted.begin());
      values = converted.data();
    }
    if (!take(values, done, count)) return;
    done += count;
  }
}
}  // namespace

void read_pieces(const std::string& path, const Header& header, const PieceReader& take) {
  std::ifstream in = open_data(path, header, "read_pieces");
  const auto n = static_cast<std::size_t>(header.count());
  if (header.item_bytes() == 8) {
    read_pieces_of<double>(in, path, n, take);
  } else {
    read_pieces_of<float>(in, path, n, take);
  }
}

std::vector<double> read_data(const std::string& path, const Header& header) {
  std::vector<double> out;
  read_pieces(path, header, [&](const double* values, std::size_t first, std::size_t count) {
    if (first == 0) out.reserve(static_cast<std::size_t>(header.count()));  // the size is checked
    out.insert(out.end(), values, values + count);
    return true;
  });
  return out;
}

std::int64_t first_non_finite(const std::string& path, const Header& header) {
  std::int64_t found = -1;
  read_pieces(path, header, [&](const double* values, std::size_t first, std::size_t count) {
    const auto bad =
        std::find_if(values, values + count, [](double v) { return !std::isfinite(v); });
    if (bad == values + count) return true;
    found = static_cast<std::int64_t>(first + (bad - values));
    return false;
  });
  return found;
}

void write(const std::string& path, const float* data, std::int64_t rows, std::int64_t cols,
           bool fortran_order) {
  write_impl(path, data, rows, cols, fortran_order);
}
void write(const std::string& path, const double* data, std::int64_t rows, std::int64_t cols,
           bool fortran_order) {
  write_impl(path, data, rows, cols, fortran_order);
}

}  // namespace tilemm::npy
