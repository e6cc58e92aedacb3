// Output path templates (`c_out`): placeholders in braces name the result a file holds.
#pragma once

#include <string>

#include "tilemm/problem.hpp"

namespace tilemm {

/// Throws std::invalid_argument naming an unknown or unclosed placeholder. Known placeholders:
/// {name} {kernel} {backend} {m} {n} {k} {precision} {layout} {tile} {team_size} {split_k}
/// {split_tiles}.
void check_path_template(const std::string& path_template);

/// Fills the placeholders for one kernel run of a problem. {tile}, {team_size}, {split_k} and
/// {split_tiles} are the values the spec asked for ("default" when it left them to the backend), so
/// that file names follow the spec; a tile in its full form, with '-' for the '/' before a thread
/// tile (16x16x16, 128x128x8-8x8).
std::string expand_path_template(const std::string& path_template, const Problem& problem,
                                 const KernelRun& run, const std::string& backend);

}  // namespace tilemm
