// Narrowing a run from the command line: the problems, kernels, precisions and layouts of the
// specs to keep (tilemm's --problems, --kernels, --precisions, --layouts; tilemm-bench's filters),
// so that a study runs a part of a shipped spec without editing it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tilemm/problem.hpp"

namespace tilemm {

/// The values to keep of each key; an empty list keeps every value.
struct Selection {
  std::vector<std::string> problems, kernels, precisions, layouts;

  /// The lists given, by option name ("--kernels"), in that order: what the results record.
  std::vector<std::pair<std::string, std::vector<std::string>>> given() const;
};

/// The problems and kernel runs of `problems` that `selection` keeps, in their order. Throws
/// InputError naming the option for a value that none of the problems has (a kernel name that is
/// none with the kernels' names), and when nothing is left.
std::vector<Problem> select(std::vector<Problem> problems, const Selection& selection);

}  // namespace tilemm
