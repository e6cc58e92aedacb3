// The files tilemm reads, spec files and matrix files, opened one way: a regular file, or a pipe
// (a named pipe, a process substitution's /dev/fd/N) once a process writes into it, waited for a
// bounded time so that a pipe nobody writes to cannot hang a batch job. A folder, a device or a
// socket is refused by what it is, a path that cannot be opened with the system's reason (no such
// file, a loop of symbolic links, no permission). A regular file's size and modification time are
// kept, so that a file changed in place since it was read can be told.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <ctime>
#include <string>

namespace tilemm {

class InputStream {
 public:
  /// How long a pipe may stay without a writer before it is refused.
  static constexpr int kPipeWaitSeconds = 5;

  /// Opens `path`. Throws std::runtime_error with the reason alone ("no such file", "it is a
  /// folder", ...), for the caller to name the file and what reads it.
  explicit InputStream(const std::string& path);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  int fd() const { return fd_; }
  /// Whether it is a regular file, and then its size when opened.
  bool regular() const { return regular_; }
  off_t size() const { return size_; }

  /// Appends up to `count` bytes read from the current position to `out`; fewer at the end of the
  /// file. Throws std::runtime_error with the system's reason when a read fails.
  void read(std::string& out, std::size_t count) const;

  /// For a regular file: whether its size or modification time differ from when it was opened (a
  /// write in place since, such as numpy's `save` to its name); false for a pipe.
  bool changed() const;

 private:
  int fd_ = -1;
  bool regular_ = false;
  off_t size_ = 0;
  timespec modified_{};
};

}  // namespace tilemm
