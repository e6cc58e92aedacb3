// The .npy matrix files a problem names under `a`, `b` and `c`. Their headers are read with the
// problem's keys, as the shapes fix the extents they cover; after the sweep is expanded, every file
// is checked against the problem's precisions and scanned for values that are not finite.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tilemm/problem.hpp"
#include "tilemm/spec_yaml.hpp"

namespace tilemm {

/// What the headers of a problem's matrix files say.
struct MatrixHeaders {
  std::map<std::string, std::int64_t> extents;  // "m", "n", "k" -> the extent the files fix
  std::map<std::string, std::string> fixed_by;  // "m", "n", "k" -> the key of the first file
  std::map<std::string, std::string> dtypes;    // "a", "b", "c" -> the file's dtype, as "<f8"
};

/// Reads the headers of the files the problem names into base.a, base.b and base.c (after its
/// transposes are read), and checks that their shapes agree on the extents they share.
MatrixHeaders read_matrix_headers(const ProblemReader& r, Problem& base);

/// Refuses a file whose dtype is not each of the problem's precisions: a file is never converted
/// silently.
void check_matrix_dtypes(const ProblemReader& r, const MatrixHeaders& headers,
                         const std::vector<Precision>& precisions);

/// Refuses a file holding a NaN or Inf, which would fail every result of the problem after the
/// problems before it had run. Each file is read once per spec: `scanned` maps a path to its first
/// element that is not finite, -1 for none.
void check_matrices_finite(const ProblemReader& r, const Problem& base,
                           std::map<std::string, std::int64_t>& scanned);

}  // namespace tilemm
