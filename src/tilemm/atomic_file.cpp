#include "tilemm/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tilemm {
namespace fs = std::filesystem;

namespace {
fs::path folder_of(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}
fs::path temp_path_for(const std::string& path) {
  return folder_of(path) /
         ("." + fs::path(path).filename().string() + ".tmp." + std::to_string(::getpid()));
}
std::runtime_error write_error(const std::string& path, int err) {
  return std::runtime_error("cannot write '" + path + "': " + std::strerror(err));
}

/// pwrite(2) until the whole text is written; false, errno set, when the system refuses the rest.
bool write_at(int fd, const std::string& text, off_t at) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n =
        ::pwrite(fd, text.data() + done, text.size() - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// Takes the lock of `fd`'s file; false when another open file holds it. A file system without
/// locks (Lustre mounted without flock) gives none: there the file is written unguarded.
bool lock(int fd) {
  return ::flock(fd, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK;
}

/// Whether `path` names the file open as `fd`.
bool names(const std::string& path, int fd) {
  struct stat open_file, named;
  return ::fstat(fd, &open_file) == 0 && ::stat(path.c_str(), &named) == 0 &&
         open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

/// Puts the (locked) file `temp` at `target`, unless another GrowingFile holds the file there.
void put_in_place(const std::string& temp, const std::string& target, const std::string& path) {
  for (;;) {
    // No file there: ours appears at once, whole and locked.
    if (::link(temp.c_str(), target.c_str()) == 0) {
      ::unlink(temp.c_str());
      return;
    }
    if (errno != EEXIST) break;  // a file system without hard links: renamed below, unchecked
    // A file there: its lock is taken on the file `target` still names once the lock is ours, as a
    // run that replaces it meanwhile holds the new one.
    const int there = ::open(target.c_str(), O_RDONLY | O_CLOEXEC);
    if (there < 0 && errno == ENOENT) continue;
    if (there < 0) throw write_error(path, errno);
    const bool locked = lock(there), current = names(target, there);
    if (locked && current) {
      const int err = ::rename(temp.c_str(), target.c_str()) == 0 ? 0 : errno;
      ::close(there);
      if (err) throw write_error(path, err);
      return;
    }
    ::close(there);
    if (current) {
      throw FileInUse("'" + path +
                      "' is being written by another run, which holds its lock: give each run a "
                      "results file of its own");
    }
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) throw write_error(path, errno);
}
}  // namespace

std::string written_file(const std::string& path) {
  fs::path file(path);
  std::error_code ec;
  for (int hop = 0; fs::is_symlink(file, ec); ++hop) {
    const fs::path next = fs::read_symlink(file, ec);
    if (ec || hop == 40) return path;  // a loop (40: Linux's own limit on links in a lookup)
    file = next.is_absolute() ? next : file.parent_path() / next;
  }
  return file.string();
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& fill) {
  const fs::path target(written_file(path));
  const fs::path temp = temp_path_for(target.string());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw write_error(path, errno);
    }
    try {
      fill(out);
    } catch (...) {  // no half-made temporary file left behind
      out.close();
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw;
    }
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw std::runtime_error("cannot write '" + path + "': write failed (disk full?)");
    }
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw write_error(path, err);
  }
}

void check_writable(const std::string& given) {
  const std::string path = written_file(given);
  const fs::path folder = folder_of(path);
  std::error_code ec;
  if (fs::is_symlink(path, ec)) {
    throw std::runtime_error("cannot write '" + given + "': its symbolic links go round in a loop");
  }
  if (!fs::is_directory(folder, ec)) {
    throw std::runtime_error("cannot write '" + given + "': '" + folder.string() + "' " +
                             (fs::exists(folder, ec) ? "is not a folder" : "does not exist"));
  }
  if (fs::is_directory(path, ec)) {
    throw std::runtime_error("cannot write '" + given + "': it is a folder");
  }
  // The write makes a new file and renames it over the old one: over a device such as /dev/null
  // (as root) or a pipe, that would replace it with a plain file.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    throw std::runtime_error("cannot write '" + given +
                             "': it is not a regular file (a device, a pipe?); results go to "
                             "regular files");
  }
  // Try what the real write will do: create a temporary file in that folder, then remove it.
  const fs::path probe = temp_path_for(path);
  std::ofstream out(probe, std::ios::binary | std::ios::trunc);
  if (!out) throw write_error(given, errno);
  out.close();
  fs::remove(probe, ec);
}

GrowingFile::GrowingFile(const std::string& path, const std::string& text, const std::string& tail)
    : path_(path), tail_at_(static_cast<off_t>(text.size())), tail_(tail) {
  const std::string target = written_file(path);
  const std::string temp = temp_path_for(target).string();
  fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) throw write_error(path, errno);
  try {
    if (!write_at(fd_, text + tail, 0)) throw write_error(path, errno);
    lock(fd_);  // no other process knows the file yet
    put_in_place(temp, target, path);
  } catch (...) {
    ::close(fd_);
    ::unlink(temp.c_str());
    throw;
  }
}

GrowingFile::~GrowingFile() {
  ::close(fd_);
}

void GrowingFile::append(const std::string& text, const std::string& tail) {
  // A file deleted while it grows (its folder removed) would take every later row with it unseen.
  struct stat status;
  if (::fstat(fd_, &status) == 0 && status.st_nlink == 0) {
    throw std::runtime_error("cannot write '" + path_ + "': it was deleted while the run wrote it");
  }
  const std::string added = text + tail;
  if (write_at(fd_, added, tail_at_)) {
    if (added.size() < tail_.size()) {
      [[maybe_unused]] const int cut =
          ::ftruncate(fd_, tail_at_ + static_cast<off_t>(added.size()));
    }
    tail_at_ += static_cast<off_t>(text.size());
    tail_ = tail;
    return;
  }
  const int err = errno;
  // What was written goes: the old tail over it, and nothing after the old tail.
  write_at(fd_, tail_, tail_at_);
  [[maybe_unused]] const int cut = ::ftruncate(fd_, tail_at_ + static_cast<off_t>(tail_.size()));
  throw write_error(path_, err);
}

}  // namespace tilemm
