// Problem specs: YAML files with a `problems:` list. Read, checked and expanded here, once, before
// anything runs; every error names the file, the line, the problem and the key.
#pragma once

#include <string>
#include <vector>

#include "tilemm/problem.hpp"

namespace tilemm {

/// A file a run read: a spec or a .npy matrix, and the SHA-256 of the bytes it parsed.
struct InputFile {
  std::string path;
  std::string sha256;
  std::string description;  // a spec's `description:`; "" for a matrix file
};

/// Loads a spec file and expands its sweeps; appends the spec and each matrix file it read, once,
/// to `inputs`. Throws InputError on any problem with the files. Without `scan_values` the matrix
/// files' values are not scanned for NaN and Inf: a rank of an MPI run other than rank 0, which
/// scans them for every rank (its verdict reaches the others through distributed/world.hpp).
std::vector<Problem> load_spec(const std::string& path, std::vector<InputFile>* inputs = nullptr,
                               bool scan_values = true);

/// The `description:` of the spec file at `path` ("" where it has none). Throws InputError where
/// the file cannot be read as a spec's YAML.
std::string read_description(const std::string& path);

/// The keys a problem may have (also allowed under `defaults:`, but for `name`).
const std::vector<std::string>& problem_keys();

}  // namespace tilemm
