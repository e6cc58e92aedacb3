#include "tilemm/npy.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "tilemm/atomic_file.hpp"
#include "tilemm/input_file.hpp"

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
    // NEP 1 pads the dictionary with spaces up to a newline; anything else there is not numpy's.
    const std::size_t junk = s_.find_first_not_of(" \t\r\n", pos_);
    if (junk != std::string::npos) {
      fail("header: bytes after the dictionary at offset " + std::to_string(junk) +
           " (only spaces and the newline may follow it)");
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

/// Fails unless `data_bytes` are exactly the array that `h` describes.
void check_data_size(const Header& h, std::size_t data_bytes) {
  // Each extent is below 2^31, so the element count fits in 63 bits, but the byte count of a
  // float64 array need not fit in 64: compare elements, not bytes, so that no product wraps round
  // (a wrapped byte count let a 64-byte file claim 2^61 elements:
  // tests/fuzz/corpus/npy/regression-shape-bytes-wrap.npy).
  const std::size_t elements = static_cast<std::size_t>(h.count());
  const bool fits = elements <= std::numeric_limits<std::size_t>::max() / h.item_bytes();
  const std::string promised = fits ? std::to_string(elements * h.item_bytes()) : "more than 2^64";
  if (elements > data_bytes / h.item_bytes()) {
    fail("truncated: the header promises " + promised + " bytes of data, the file has " +
         std::to_string(data_bytes));
  }
  if (data_bytes != elements * h.item_bytes()) {
    fail("more data than the header says: it promises " + promised +
         " bytes of data, the file has " + std::to_string(data_bytes) + " or more");
  }
}

/// Where a file's header dictionary lies: from `start` to `end`, where its array data begins.
struct HeaderSpan {
  std::size_t start = 0, end = 0;
};

/// The header's place, from a file's first bytes (magic, version, header length); fails as parse()
/// does on a prefix that is not a .npy file's.
HeaderSpan header_span(const char* bytes, std::size_t available) {
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
  return {prefix, prefix + header_bytes};
}

/// The header of a file whose first `available` bytes are in memory, unchecked against its data.
Header parse_header(const char* bytes, std::size_t available) {
  const HeaderSpan span = header_span(bytes, available);
  if (available < span.end) fail("truncated .npy header");
  Header h = DictParser(std::string(bytes + span.start, span.end - span.start)).parse();
  h.data_offset = span.end;
  if (h.descr.size() == 3 && h.descr[0] == '>') {
    fail("dtype '" + h.descr + "' is big-endian; tilemm reads little-endian float32/float64");
  }
  if (h.descr != "<f4" && h.descr != "<f8") {
    fail("dtype '" + h.descr + "' is not float32 ('<f4') or float64 ('<f8')");
  }
  if (h.shape.size() != 2) {
    fail("array has " + std::to_string(h.shape.size()) + " dimensions; a matrix needs 2");
  }
  return h;
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

Header parse(const char* bytes, std::size_t size) {
  const Header h = parse_header(bytes, size);
  check_data_size(h, size - h.data_offset);
  return h;
}

namespace {

/// The bytes of a pipe: the prefix, then the header it announces, then the array it describes and
/// one byte past it (to tell a longer file), never more however long the stream.
std::string read_stream(const InputStream& in) {
  std::string bytes;
  in.read(bytes, kMagicBytes + 2 + 4);
  const HeaderSpan span = header_span(bytes.data(), bytes.size());
  in.read(bytes, span.end - std::min(span.end, bytes.size()));
  const Header h = parse_header(bytes.data(), bytes.size());
  const std::size_t elements = static_cast<std::size_t>(h.count()), held = bytes.size();
  if (elements <= (std::numeric_limits<std::size_t>::max() - held) / h.item_bytes() - 1) {
    in.read(bytes, h.data_offset + elements * h.item_bytes() + 1 - held);
  }
  return bytes;
}

}  // namespace

File read(const std::string& path) {
  std::shared_ptr<const InputStream> in;
  try {
    in = std::make_shared<const InputStream>(path);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("cannot read '" + path + "': " + e.what());
  }
  File file;
  file.source = in;
  const auto size = static_cast<std::size_t>(in->regular() ? in->size() : 0);
  void* map = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, in->fd(), 0) : MAP_FAILED;
  if (map != MAP_FAILED) {
    file.owner = std::shared_ptr<const void>(
        map, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
    file.bytes = std::string_view(static_cast<const char*>(map), size);
  } else {
    auto held = std::make_shared<const std::string>(read_stream(*in));
    file.bytes = *held;
    file.owner = std::move(held);
  }
  file.header = parse(file.bytes.data(), file.bytes.size());
  return file;
}

void check_unchanged(const File& file, const std::string& path) {
  if (file.source && file.source->changed()) {
    throw std::runtime_error("'" + path +
                             "' changed while the run read it (written in place since the spec "
                             "was read and its SHA-256 taken): the product may not be of the "
                             "values checked and recorded; leave a run's matrix files alone, or "
                             "replace one by a rename (mv), which the run does not see");
  }
}

namespace {
template <class Scalar>
void for_each_piece_of(const char* data, std::size_t n, const PieceReader& take) {
  constexpr std::size_t kPiece = std::size_t(1) << 17;
  std::vector<Scalar> piece(std::min(n, kPiece));
  std::vector<double> converted(std::is_same_v<Scalar, double> ? 0 : piece.size());
  for (std::size_t done = 0; done < n;) {
    const std::size_t count = std::min(kPiece, n - done);
    // Copied, not cast: the data of a file need not be aligned for Scalar.
    std::memcpy(piece.data(), data + done * sizeof(Scalar), count * sizeof(Scalar));
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

void for_each_piece(const File& file, const PieceReader& take) {
  const auto n = static_cast<std::size_t>(file.header.count());
  if (file.header.item_bytes() == 8) {
    for_each_piece_of<double>(file.data(), n, take);
  } else {
    for_each_piece_of<float>(file.data(), n, take);
  }
}

std::vector<double> values(const File& file) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(file.header.count()));
  for_each_piece(file, [&](const double* values, std::size_t, std::size_t count) {
    out.insert(out.end(), values, values + count);
    return true;
  });
  return out;
}

Scan scan(const File& file) {
  Scan found;
  for_each_piece(file, [&](const double* values, std::size_t first, std::size_t count) {
    for (std::size_t e = 0; e < count; ++e) {
      if (!std::isfinite(values[e])) {
        found.first_non_finite = static_cast<std::int64_t>(first + e);
        return false;
      }
      found.largest = std::max(found.largest, std::fabs(values[e]));
    }
    return true;
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
