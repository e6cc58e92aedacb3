#include "tilemm/input_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tilemm {
namespace {

[[noreturn]] void fail(const std::string& why) {
  throw std::runtime_error(why);
}

/// The reason errno gives, worded as tilemm's other messages ("no such file").
std::string reason(int error) {
  return error == ENOENT ? std::string("no such file") : std::string(std::strerror(error));
}

}  // namespace

InputStream::InputStream(const std::string& path) {
  struct stat info {};
  // By the path first: a device is refused before it is opened (opening some has effects).
  if (::stat(path.c_str(), &info) != 0) fail(reason(errno));
  if (S_ISDIR(info.st_mode)) fail("it is a folder");
  if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode)) {
    fail("it is not a regular file or a pipe (a device, a socket?)");
  }
  // Without O_NONBLOCK, opening a named pipe waits for ever for a writer.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0 || ::fstat(fd_, &info) != 0) {
    const int error = errno;
    if (fd_ >= 0) ::close(fd_);
    fail(reason(error));
  }
  regular_ = S_ISREG(info.st_mode);
  size_ = info.st_size;
  modified_ = info.st_mtim;
  if (regular_) return;
  pollfd waiting{fd_, POLLIN, 0};
  int ready = 0;
  do {
    ready = ::poll(&waiting, 1, kPipeWaitSeconds * 1000);
  } while (ready < 0 && errno == EINTR);
  if (ready == 0) {
    ::close(fd_);
    fail("it is a pipe that no process wrote to within " + std::to_string(kPipeWaitSeconds) + " s");
  }
  // A writer is there: reads may wait for its next bytes from now on.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

InputStream::~InputStream() {
  if (fd_ >= 0) ::close(fd_);
}

void InputStream::read(std::string& out, std::size_t count) const {
  constexpr std::size_t kStep = std::size_t(1) << 20;  // grown in steps: a promise is no size
  while (count > 0) {
    const std::size_t step = std::min(count, kStep), had = out.size();
    out.resize(had + step);
    const ssize_t got = ::read(fd_, out.data() + had, step);
    if (got < 0 && errno == EINTR) {
      out.resize(had);
      continue;
    }
    if (got < 0) {
      const int error = errno;
      out.resize(had);
      fail(reason(error));
    }
    out.resize(had + std::size_t(got));
    if (got == 0) return;
    count -= std::size_t(got);
  }
}

bool InputStream::changed() const {
  struct stat info {};
  if (!regular_ || ::fstat(fd_, &info) != 0) return false;
  return info.st_size != size_ || info.st_mtim.tv_sec != modified_.tv_sec ||
         info.st_mtim.tv_nsec != modified_.tv_nsec;
}

}  // namespace tilemm
