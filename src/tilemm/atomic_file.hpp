// Result files are written whole or not at all: into a temporary file beside the target, then
// renamed over it, so that a job killed mid-write leaves the previous complete version, never half
// a file.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace tilemm {

/// The file that a write to `path` replaces: `path`, or through symbolic links, dangling ones
/// included, the file they name (as the shell's `>` writes), so that the links stay; `path` itself
/// when its links go round in a loop.
std::string written_file(const std::string& path);

/// Calls `fill` with a stream to a temporary file in the target's folder, then renames it to
/// written_file(path). Throws std::runtime_error naming the
/// path when the file cannot be written, and leaves no temporary file behind.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& fill);

/// Checks that `path` can be created or replaced (its folder exists and is writable, the file is
/// none or a regular one; a symbolic link stands for the file it names), without
/// touching an existing file. Throws std::runtime_error naming the path and the reason.
void check_writable(const std::string& path);

}  // namespace tilemm
