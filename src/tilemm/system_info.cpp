#include "tilemm/system_info.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <limits>
#include <sstream>

namespace tilemm::system_info {
namespace {

/// The value of `key` in a "key: value kB" file such as /proc/meminfo, in bytes (0 if absent).
std::size_t kib_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() &&
        line[key.size()] == ':') {
      std::istringstream fields(line.substr(key.size() + 1));
      std::size_t kib = 0;
      fields >> kib;
      return kib * 1024;
    }
  }
  return 0;
}

}  // namespace

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown CPU";
}

std::string hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

std::size_t host_memory_total() {
  return kib_field("/proc/meminfo", "MemTotal");
}

namespace {

/// The address-space limit (`ulimit -v`) in bytes; RLIM_INFINITY when there is none.
rlim_t address_space_limit() {
  rlimit limit{};
  return ::getrlimit(RLIMIT_AS, &limit) == 0 ? limit.rlim_cur : RLIM_INFINITY;
}

}  // namespace

std::size_t host_memory_available(std::size_t reserved) {
  std::size_t available = kib_field("/proc/meminfo", "MemAvailable");
  if (available == 0) available = std::numeric_limits<std::size_t>::max();
  const rlim_t limit = address_space_limit();
  if (limit != RLIM_INFINITY) {
    const std::size_t used = kib_field("/proc/self/status", "VmSize") + reserved;
    const std::size_t cap = limit > used ? limit - used : 0;
    available = std::min(available, cap);
  }
  return available;
}

bool address_space_limited() {
  return address_space_limit() != RLIM_INFINITY;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace tilemm::system_info
