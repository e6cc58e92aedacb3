// The files a spec reads: the spec itself and the .npy matrix files its problems name under `a`,
// `b` and `c`, each read once, its bytes parsed, checked and hashed. A matrix file is read with the
// problem's keys, as its shape fixes the extents it covers; after the sweep is expanded, every file
// is checked against the problem's precisions and scanned for values that are not finite.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tilemm/npy.hpp"
#include "tilemm/problem.hpp"
#include "tilemm/spec_yaml.hpp"

namespace tilemm {

/// SHA-256 of `bytes`, in hex.
std::string sha256_hex(std::string_view bytes);

/// The matrix files a spec names, each read once however many problems name it, and what the scan
/// of its values found (npy::scan; `scanned` false before the scan).
struct ReadMatrix {
  std::shared_ptr<const npy::File> file;
  bool scanned = false;
  npy::Scan values;
};
using MatrixFiles = std::map<std::string, ReadMatrix>;

/// What the headers of a problem's matrix files say.
struct MatrixHeaders {
  std::map<std::string, std::int64_t> extents;  // "m", "n", "k" -> the extent the files fix
  std::map<std::string, std::string> fixed_by;  // "m", "n", "k" -> the key of the first file
  std::map<std::string, std::string> dtypes;    // "a", "b", "c" -> the file's dtype, as "<f8"
};

/// Reads the files the problem names (those not in `files` yet) into base.a, base.b and base.c
/// (after its transposes are read), and checks that their shapes agree on the extents they share.
MatrixHeaders read_matrix_headers(const ProblemReader& r, Problem& base, MatrixFiles& files);

/// Refuses a file whose dtype is not each of the problem's precisions: a file is never converted
/// silently.
void check_matrix_dtypes(const ProblemReader& r, const MatrixHeaders& headers,
                         const std::vector<Precision>& precisions);

/// Refuses a file holding a NaN or Inf, which would fail every result of the problem after the
/// problems before it had run. Each file is scanned once per spec. With beta = 0 the problem never
/// reads C (as BLAS), so its `c` file is not scanned.
void check_matrices_finite(const ProblemReader& r, const Problem& base, MatrixFiles& files);

/// The largest magnitude the problem's matrix `key` ("a", "b" or "c") holds: 1 for random values
/// (they lie in [-1, 1)), else its file's, once check_matrices_finite scanned it; -1 for a file
/// not scanned.
double largest_magnitude(const Problem& base, const std::string& key, const MatrixFiles& files);

}  // namespace tilemm
