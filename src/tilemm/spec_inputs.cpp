#include "tilemm/spec_inputs.hpp"

#include <openssl/sha.h>

#include <utility>

#include "tilemm/npy.hpp"

namespace tilemm {
namespace {

/// The file under `key`, read unless `files` holds it already, which must hold a matrix of at
/// least one element.
NpySource read_matrix(const ProblemReader& r, const std::string& key, MatrixFiles& files,
                      std::string& dtype) {
  const YAML::Node node = r.find(key);
  NpySource src;
  src.path = r.path(node, key);
  ReadMatrix& read = files[src.path];
  if (!read.file) {
    try {
      read.file = std::make_shared<const npy::File>(npy::read(src.path));
    } catch (const std::exception& e) {
      files.erase(src.path);
      r.error(node, key, "'" + src.path + "': " + e.what());
    }
  }
  src.file = read.file;
  const npy::Header& header = read.file->header;
  src.rows = header.shape[0];
  src.cols = header.shape[1];
  // numpy writes empty arrays; extents are at least 1 here as when the spec gives them.
  if (src.rows == 0 || src.cols == 0) {
    r.error(node, key,
            "'" + src.path + "' holds a " + std::to_string(src.rows) + " x " +
                std::to_string(src.cols) + " array; a matrix needs at least 1 row and 1 column");
  }
  src.fortran_order = header.fortran_order;
  dtype = header.descr;
  return src;
}

/// The shape of op(X) for a stored matrix of rows x cols.
std::pair<std::int64_t, std::int64_t> op_shape(const NpySource& s, Trans t) {
  return t == Trans::N ? std::make_pair(s.rows, s.cols) : std::make_pair(s.cols, s.rows);
}

void check_finite(const ProblemReader& r, const std::string& key, const NpySource& src,
                  MatrixFiles& files) {
  ReadMatrix& read = files.at(src.path);
  if (!read.scanned) {
    read.values = npy::scan(*read.file);
    read.scanned = true;
  }
  const std::int64_t e = read.values.first_non_finite;
  if (e < 0) return;
  const auto [row, col] = npy::file_order_position(e, src.rows, src.cols, src.fortran_order);
  r.error(r.find(key), key,
          "'" + src.path + "' holds a NaN or Inf at row " + std::to_string(row) + ", column " +
              std::to_string(col) + " (element " + std::to_string(e) +
              " in file order); tilemm multiplies finite matrices");
}

}  // namespace

MatrixHeaders read_matrix_headers(const ProblemReader& r, Problem& base, MatrixFiles& files) {
  MatrixHeaders headers;
  // The file under `key` gives `extent` the value `value`: the first to give it fixes it.
  const auto fix = [&](const std::string& extent, std::int64_t value, const std::string& key) {
    const auto [it, inserted] = headers.extents.emplace(extent, value);
    if (!inserted && it->second != value) {
      r.error(r.find(key), key,
              "its shape gives " + extent + " = " + std::to_string(value) + " but '" +
                  headers.fixed_by[extent] + "' gives " + extent + " = " +
                  std::to_string(it->second));
    }
    headers.fixed_by.emplace(extent, key);
  };
  if (r.find("a")) {
    base.a = read_matrix(r, "a", files, headers.dtypes["a"]);
    const auto [rows, cols] = op_shape(*base.a, base.trans_a);
    fix("m", rows, "a");
    fix("k", cols, "a");
  }
  if (r.find("b")) {
    base.b = read_matrix(r, "b", files, headers.dtypes["b"]);
    const auto [rows, cols] = op_shape(*base.b, base.trans_b);
    fix("k", rows, "b");
    fix("n", cols, "b");
  }
  if (r.find("c")) {
    base.c = read_matrix(r, "c", files, headers.dtypes["c"]);
    fix("m", base.c->rows, "c");
    fix("n", base.c->cols, "c");
  }
  return headers;
}

void check_matrix_dtypes(const ProblemReader& r, const MatrixHeaders& headers,
                         const std::vector<Precision>& precisions) {
  for (const auto& [key, got] : headers.dtypes) {
    for (const auto precision : precisions) {
      const std::string want = precision == Precision::Float ? "<f4" : "<f8";
      if (got != want) {
        r.error(r.find(key), key,
                "holds dtype '" + got + "' but the problem's precision is " + to_string(precision) +
                    " (needs '" + want + "')");
      }
    }
  }
}

void check_matrices_finite(const ProblemReader& r, const Problem& base, MatrixFiles& files) {
  if (base.a) check_finite(r, "a", *base.a, files);
  if (base.b) check_finite(r, "b", *base.b, files);
  if (base.c && base.beta != 0) check_finite(r, "c", *base.c, files);  // beta = 0 never reads C
}

double largest_magnitude(const Problem& base, const std::string& key, const MatrixFiles& files) {
  const std::optional<NpySource>& source = key == "a" ? base.a : key == "b" ? base.b : base.c;
  if (!source) return 1;
  const ReadMatrix& read = files.at(source->path);
  return read.scanned ? read.values.largest : -1;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const unsigned char byte : digest) {
    out += hex[byte >> 4];
    out += hex[byte & 15];
  }
  return out;
}

}  // namespace tilemm
