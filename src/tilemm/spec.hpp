// Problem specs: YAML files with a `problems:` list. Read, checked and expanded here, once, before
// anything runs; every error names the file, the line, the problem and the key.
#pragma once

#include <string>
#include <vector>

#include "tilemm/problem.hpp"

namespace tilemm {

/// Loads a spec file and expands its sweeps. Throws InputError on any problem with the file.
std::vector<Problem> load_spec(const std::string& path);

/// The keys a problem may have (also allowed under `defaults:`, but for `name`).
const std::vector<std::string>& problem_keys();

}  // namespace tilemm
