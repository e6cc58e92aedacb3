// Result files are whole at every moment. A file written once (a result matrix) is written into a
// temporary file beside the target, then renamed over it. A file that grows row by row (the JSON
// and CSV results) is made whole the same way, then grown in place: each row is one write that
// replaces the file's closing bytes by the row and the closing bytes again, so that a job killed
// at any moment leaves a valid file, and a row costs the same however many came before it.
#pragma once

#include <sys/types.h>

#include <functional>
#include <ostream>
#include <stdexcept>
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

/// Another process (or another GrowingFile) holds the lock of the file.
class FileInUse : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file that grows by appends and is whole after each: its text ends with a tail (the bytes that
/// close it, such as "]}"), and each append is one write of new text and a tail where the old tail
/// was. It holds an advisory lock (flock) on the file from the moment the file appears until it is
/// destroyed, so that a second GrowingFile of the same file, in any process, is refused.
class GrowingFile {
 public:
  /// Replaces written_file(path) by `text` and `tail`, made whole in a temporary file first.
  /// Throws FileInUse when another GrowingFile holds the file there, std::runtime_error naming the
  /// path when it cannot be written; either way no temporary file is left behind.
  GrowingFile(const std::string& path, const std::string& text, const std::string& tail);
  ~GrowingFile();
  GrowingFile(const GrowingFile&) = delete;
  GrowingFile& operator=(const GrowingFile&) = delete;

  /// Writes `text` where the tail begins, then `tail`. Throws std::runtime_error naming the path
  /// when the write fails (a full disk, a file-size limit), with the file put back as it was, and
  /// when the file has been deleted.
  void append(const std::string& text, const std::string& tail);

 private:
  std::string path_;
  int fd_ = -1;
  off_t tail_at_;  // where the tail begins
  std::string tail_;
};

}  // namespace tilemm
