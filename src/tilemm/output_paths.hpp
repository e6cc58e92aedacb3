// Every rule about the files a run writes: the `c_out` templates, whose placeholders in braces name
// the result a file holds, and the checks, made before anything runs, that no result file is
// written twice or overwrites an input.
#pragma once

#include <string>
#include <vector>

#include "tilemm/problem.hpp"

namespace tilemm {

/// Throws std::invalid_argument naming an unknown or unclosed placeholder. Known placeholders:
/// {name} {kernel} {backend} {m} {n} {k} {precision} {layout} {tile} {team_size} {split_k}
/// {split_tiles}, and the keys of an MPI run: {grid} {block} {panel} {comm} {distribution}.
void check_path_template(const std::string& path_template);

/// Fills the placeholders for one kernel run of a problem. {tile}, {team_size}, {split_k},
/// {split_tiles}, {grid}, {block} and {panel} are the values the spec asked for ("default" when it
/// left them to the backend), so that file names follow the spec; a tile in its full form, with '-'
/// for the '/' before a thread tile (16x16x16, 128x128x8-8x8).
std::string expand_path_template(const std::string& path_template, const Problem& problem,
                                 const KernelRun& run, const std::string& backend);

/// Throws std::invalid_argument when the `c_out` template of one problem's sweep names one file for
/// two of its results: a placeholder is missing for a key the sweep lists (the message names the
/// placeholders that tell those two apart). The files are compared as the template writes them, the
/// same on every backend.
void check_sweep_outputs(const std::vector<Problem>& sweep);

/// Checks that every file a run will write (the --json and --csv files, "" when not asked for, and
/// the C of each result) is writable, written once (a second write would lose the first), and none
/// of the inputs (the spec files, the .npy matrices), nor a standard stream or a process's file
/// descriptor (/dev/stdout, /dev/fd/N, /proc/PID/fd/N, or a link to one). The --json or --csv file
/// "-" is standard output, for one of them. Throws InputError naming the option, or the problem and
/// its key.
void check_output_files(const std::vector<std::string>& spec_files, const std::string& json,
                        const std::string& csv, const std::vector<Problem>& problems,
                        const std::string& backend);

}  // namespace tilemm
