#include "tilemm/spec_inputs.hpp"

#include <utility>

#include "tilemm/npy.hpp"

namespace tilemm {
namespace {

/// The header of the file under `key`, which must hold a matrix of at least one element.
NpySource read_header(const ProblemReader& r, const std::string& key, std::string& dtype) {
  const YAML::Node node = r.find(key);
  NpySource src;
  src.path = r.path(node, key);
  npy::Header header;
  try {
    header = npy::read_header(src.path);
  } catch (const std::exception& e) {
    r.error(node, key, "'" + src.path + "': " + e.what());
  }
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
                  std::map<std::string, std::int64_t>& scanned) {
  const YAML::Node node = r.find(key);
  auto it = scanned.find(src.path);
  if (it == scanned.end()) {
    try {
      it = scanned.emplace(src.path, npy::first_non_finite(src.path, npy::read_header(src.path)))
               .first;
    } catch (const std::exception& e) {
      r.error(node, key, "'" + src.path + "': " + e.what());
    }
  }
  const std::int64_t e = it->second;
  if (e < 0) return;
  const auto [row, col] = npy::file_order_position(e, src.rows, src.cols, src.fortran_order);
  r.error(node, key,
          "'" + src.path + "' holds a NaN or Inf at row " + std::to_string(row) + ", column " +
              std::to_string(col) + " (element " + std::to_string(e) +
              " in file order); tilemm multiplies finite matrices");
}

}  // namespace

MatrixHeaders read_matrix_headers(const ProblemReader& r, Problem& base) {
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
    base.a = read_header(r, "a", headers.dtypes["a"]);
    const auto [rows, cols] = op_shape(*base.a, base.trans_a);
    fix("m", rows, "a");
    fix("k", cols, "a");
  }
  if (r.find("b")) {
    base.b = read_header(r, "b", headers.dtypes["b"]);
    const auto [rows, cols] = op_shape(*base.b, base.trans_b);
    fix("k", rows, "b");
    fix("n", cols, "b");
  }
  if (r.find("c")) {
    base.c = read_header(r, "c", headers.dtypes["c"]);
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

void check_matrices_finite(const ProblemReader& r, const Problem& base,
                           std::map<std::string, std::int64_t>& scanned) {
  if (base.a) check_finite(r, "a", *base.a, scanned);
  if (base.b) check_finite(r, "b", *base.b, scanned);
  if (base.c) check_finite(r, "c", *base.c, scanned);
}

}  // namespace tilemm
