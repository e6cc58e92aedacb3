#include "tilemm/system_info.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
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

/// A limit of the process (`ulimit -v`: RLIMIT_AS; `ulimit -d`: RLIMIT_DATA) in bytes;
/// RLIM_INFINITY when there is none.
rlim_t process_limit(int resource) {
  rlimit limit{};
  return ::getrlimit(resource, &limit) == 0 ? limit.rlim_cur : RLIM_INFINITY;
}

namespace fs = std::filesystem;

/// A byte count in a cgroup file; nullopt where the file is missing or says there is no limit
/// (v2 writes "max"; v1 a number near 2^63, rounded down to its page size).
std::optional<std::size_t> cgroup_bytes(const fs::path& file) {
  std::ifstream in(file);
  std::size_t bytes = 0;
  if (!(in >> bytes) || bytes >= (std::size_t(1) << 62)) return std::nullopt;
  return bytes;
}

/// The memory charged to a cgroup that the system cannot reclaim: its charge less its file cache
/// (memory.stat's active and inactive file pages; v1 counts the cgroups below under "total_"),
/// which the system drops before it kills. nullopt where the charge cannot be read.
std::optional<std::size_t> unreclaimable(const fs::path& folder, bool v2) {
  const auto charge = cgroup_bytes(folder / (v2 ? "memory.current" : "memory.usage_in_bytes"));
  if (!charge) return std::nullopt;
  const std::string prefix = v2 ? "" : "total_";
  std::ifstream stat(folder / "memory.stat");
  std::string name;
  std::size_t bytes = 0, cache = 0;
  while (stat >> name >> bytes) {
    if (name == prefix + "active_file" || name == prefix + "inactive_file") cache += bytes;
  }
  return *charge - std::min(cache, *charge);
}

/// The headroom under the limits of the cgroup `path` in the hierarchy mounted at `mount` and of
/// each cgroup above it, since a batch system may set the limit on the job's cgroup above the
/// task's own: the smallest of limit less unreclaimable use. v2's memory.high counts as a limit,
/// since past it the system holds the run back. A path that climbs out of the mount (a process
/// moved after its cgroup namespace was made) is read at the mount point.
std::optional<std::size_t> headroom(const fs::path& mount, const std::string& path, bool v2) {
  std::optional<std::size_t> smallest;
  const auto take = [&](std::optional<std::size_t> limit, std::size_t used) {
    const std::size_t room = limit && *limit > used ? *limit - used : 0;
    if (limit) smallest = std::min(smallest.value_or(room), room);
  };
  fs::path below = fs::path(path).relative_path().lexically_normal();
  if (!below.empty() && *below.begin() == "..") below.clear();
  for (;;) {
    const fs::path folder = below.empty() ? mount : mount / below;
    if (const auto used = unreclaimable(folder, v2)) {
      take(cgroup_bytes(folder / (v2 ? "memory.max" : "memory.limit_in_bytes")), *used);
      if (v2) take(cgroup_bytes(folder / "memory.high"), *used);
    }
    if (below.empty()) break;
    below = below.parent_path();
  }
  return smallest;
}

}  // namespace

std::optional<std::size_t> cgroup_memory_headroom(const std::string& self_cgroup,
                                                  const std::string& mount) {
  std::optional<std::size_t> smallest;
  std::ifstream in(self_cgroup);
  for (std::string line; std::getline(in, line);) {
    // "0::/path" names the process's cgroup under v2; "4:memory:/path" under v1's memory
    // controller, whose hierarchy is mounted in a folder of its own.
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    const bool v2 = line.compare(0, second + 1, "0::") == 0;
    if (!v2 && controllers.find(",memory,") == std::string::npos) continue;
    const fs::path top = v2 ? fs::path(mount) : fs::path(mount) / "memory";
    if (const auto room = headroom(top, line.substr(second + 1), v2)) {
      smallest = std::min(smallest.value_or(*room), *room);
    }
  }
  return smallest;
}

HostMemory host_memory() {
  HostMemory memory;
  memory.machine = kib_field("/proc/meminfo", "MemAvailable");
  if (memory.machine == 0) memory.machine = std::numeric_limits<std::size_t>::max();
  memory.cgroup = cgroup_memory_headroom();
  // Each limit less what it counts already: every mapping for RLIMIT_AS; the heap and the private
  // writable mappings (VmData), where every allocation lands, for RLIMIT_DATA.
  for (const auto& [resource, field] : {std::pair{RLIMIT_AS, "VmSize"}, {RLIMIT_DATA, "VmData"}}) {
    const rlim_t limit = process_limit(resource);
    if (limit == RLIM_INFINITY) continue;
    const std::size_t used = kib_field("/proc/self/status", field);
    const std::size_t room = limit > used ? limit - used : 0;
    if (!memory.address_space || room < *memory.address_space) memory.address_space = room;
  }
  return memory;
}

namespace {

/// A sysfs cache size: "48K", "2048K", "300M" (or bytes), in bytes; 0 where unreadable.
std::int64_t cache_bytes(const std::string& text) {
  std::istringstream in(text);
  std::int64_t value = 0;
  char unit = 0;
  if (!(in >> value)) return 0;
  in >> unit;
  return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : unit == 'G' ? value << 30 : value;
}

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

CpuCaches sysfs_caches(const std::string& sysfs) {
  CpuCaches c;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(sysfs, error)) {
    const fs::path index = entry.path();
    if (index.filename().string().rfind("index", 0) != 0) continue;
    const std::string type = first_line(index / "type"), level = first_line(index / "level");
    if (type != "Data" && type != "Unified") continue;
    const std::int64_t bytes = cache_bytes(first_line(index / "size"));
    const int ways = std::atoi(first_line(index / "ways_of_associativity").c_str());
    const int line = std::atoi(first_line(index / "coherency_line_size").c_str());
    if (level == "1") {
      c.l1d = bytes, c.l1d_ways = ways;
      if (line > 0) c.line = line;
    } else if (level == "2") {
      c.l2 = bytes, c.l2_ways = ways;
    } else if (level == "3") {
      c.l3 = bytes, c.l3_ways = ways;
    }
  }
  return c;
}

CpuCaches cpu_caches() {
  CpuCaches c = sysfs_caches("/sys/devices/system/cpu/cpu0/cache");
  const auto fill = [](auto& field, int name) {
    if (field <= 0) field = std::max<long>(0, ::sysconf(name));
  };
  fill(c.l1d, _SC_LEVEL1_DCACHE_SIZE);
  fill(c.l1d_ways, _SC_LEVEL1_DCACHE_ASSOC);
  fill(c.line, _SC_LEVEL1_DCACHE_LINESIZE);
  fill(c.l2, _SC_LEVEL2_CACHE_SIZE);
  fill(c.l2_ways, _SC_LEVEL2_CACHE_ASSOC);
  fill(c.l3, _SC_LEVEL3_CACHE_SIZE);
  fill(c.l3_ways, _SC_LEVEL3_CACHE_ASSOC);
  return c;
}

std::string caches_text(const CpuCaches& c) {
  const auto cache = [](const char* name, std::int64_t bytes, int ways) {
    if (bytes <= 0) return std::string(name) + " unreported";
    return std::string(name) + " " + std::to_string(bytes) + " B " +
           (ways > 0 ? std::to_string(ways) + "-way" : "ways unreported");
  };
  return cache("L1d", c.l1d, c.l1d_ways) + ", " + cache("L2", c.l2, c.l2_ways) + ", " +
         cache("L3", c.l3, c.l3_ways) + ", " +
         (c.line > 0 ? std::to_string(c.line) + "-byte lines" : "line unreported");
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
