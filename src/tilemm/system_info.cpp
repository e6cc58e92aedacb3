#include "tilemm/system_info.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

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

/// A byte count in a cgroup file; nullopt where the file is missing or says there is no limit
/// (v2 writes "max"; v1 a number near 2^63).
std::optional<std::size_t> cgroup_bytes(const std::string& file) {
  std::ifstream in(file);
  std::string word;
  if (!(in >> word)) return std::nullopt;
  std::size_t bytes = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), bytes);
  if (error != std::errc() || end != word.data() + word.size()) return std::nullopt;
  if (bytes >= (std::size_t(1) << 62)) return std::nullopt;
  return bytes;
}

/// The value of `key` in a cgroup's memory.stat ("inactive_file 4096"); 0 where absent.
std::size_t stat_bytes(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string name;
  std::size_t bytes = 0;
  while (in >> name >> bytes) {
    if (name == key) return bytes;
  }
  return 0;
}

/// A field of /proc/self/mountinfo with its octal escapes ("\\040" for a space) undone.
std::string unescape_mount_field(const std::string& field) {
  std::string text;
  for (std::size_t i = 0; i < field.size(); ++i) {
    const std::string digits = field.substr(i + 1, 3);
    if (field[i] == '\\' && digits.size() == 3 &&
        digits.find_first_not_of("01234567") == std::string::npos) {
      text += char(std::stoi(digits, nullptr, 8));
      i += 3;
    } else {
      text += field[i];
    }
  }
  return text;
}

/// A mounted cgroup hierarchy that can limit memory: v2, or v1's with the memory controller.
struct MemoryHierarchy {
  bool v2 = false;
  std::string root;   // the cgroup the mount shows at its mount point
  std::string point;  // where it is mounted
};

std::vector<MemoryHierarchy> memory_hierarchies(const std::string& mountinfo) {
  std::vector<MemoryHierarchy> found;
  std::ifstream in(mountinfo);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    // id parent dev root point options [optional fields] - type source super-options
    const auto dash = std::find(fields.begin(), fields.end(), "-");
    if (fields.size() < 5 || fields.end() - dash < 4) continue;
    const std::string& type = dash[1];
    const std::string options = "," + dash[3] + ",";
    const bool v2 = type == "cgroup2";
    if (!v2 && !(type == "cgroup" && options.find(",memory,") != std::string::npos)) continue;
    found.push_back({v2, unescape_mount_field(fields[3]), unescape_mount_field(fields[4])});
  }
  return found;
}

/// The process's cgroup in the v2 hierarchy ("0::/path") or in v1's memory one ("4:memory:/path"),
/// from /proc/self/cgroup; nullopt where it names none.
std::optional<std::string> cgroup_path(const std::string& file, bool v2) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    const bool match = v2 ? line.compare(0, first, "0") == 0 && controllers == ",,"
                          : controllers.find(",memory,") != std::string::npos;
    if (match) return line.substr(second + 1);
  }
  return std::nullopt;
}

/// The folders of a process's memory cgroup and of each cgroup above it, in one hierarchy.
struct MemoryCgroup {
  bool v2 = false;
  std::vector<std::filesystem::path> levels;  // the process's own first, the mount point last
};

std::vector<MemoryCgroup> memory_cgroups(const std::string& proc, const std::string& root) {
  std::vector<MemoryCgroup> found;
  for (const auto& h : memory_hierarchies(proc + "/mountinfo")) {
    const auto path = cgroup_path(proc + "/cgroup", h.v2);
    if (!path) continue;
    // The process's cgroup below the mount's root cgroup; in a cgroup namespace (a container's
    // view) the mount's root is the process's own cgroup, or one the path does not lie under.
    std::string below;
    if (h.root == "/") {
      below = *path == "/" ? "" : *path;
    } else if (path->compare(0, h.root.size(), h.root) == 0 &&
               (path->size() == h.root.size() || (*path)[h.root.size()] == '/')) {
      below = path->substr(h.root.size());
    }
    const std::filesystem::path top = std::filesystem::path(root + h.point).lexically_normal();
    std::filesystem::path dir = std::filesystem::path(root + h.point + below).lexically_normal();
    std::error_code missing;
    if (!std::filesystem::is_directory(dir, missing)) dir = top;
    MemoryCgroup cgroup{h.v2, {dir}};
    while (dir != top && dir.has_relative_path() && dir.string().size() > top.string().size()) {
      dir = dir.parent_path();
      cgroup.levels.push_back(dir);
    }
    found.push_back(cgroup);
  }
  return found;
}

/// The headroom under the limits of each level of each cgroup: the smallest of limit less use.
std::optional<std::size_t> headroom(const std::vector<MemoryCgroup>& cgroups) {
  std::optional<std::size_t> smallest;
  for (const auto& cgroup : cgroups) {
    const char* limit_file = cgroup.v2 ? "memory.max" : "memory.limit_in_bytes";
    const char* usage_file = cgroup.v2 ? "memory.current" : "memory.usage_in_bytes";
    // v1's memory.stat counts the cgroups below under "total_"; v2's always does.
    const char* inactive_key = cgroup.v2 ? "inactive_file" : "total_inactive_file";
    for (const auto& dir : cgroup.levels) {
      const auto limit = cgroup_bytes((dir / limit_file).string());
      const auto usage = cgroup_bytes((dir / usage_file).string());
      if (!limit || !usage) continue;
      const std::size_t inactive = stat_bytes((dir / "memory.stat").string(), inactive_key);
      const std::size_t used = *usage - std::min(inactive, *usage);
      const std::size_t room = *limit > used ? *limit - used : 0;
      smallest = std::min(smallest.value_or(room), room);
    }
  }
  return smallest;
}

}  // namespace

std::optional<std::size_t> cgroup_memory_headroom(const std::string& proc,
                                                  const std::string& root) {
  return headroom(memory_cgroups(proc, root));
}

HostMemory host_memory() {
  HostMemory memory;
  memory.machine = kib_field("/proc/meminfo", "MemAvailable");
  if (memory.machine == 0) memory.machine = std::numeric_limits<std::size_t>::max();
  // Where the process's cgroups lie is read once; what they hold, every time.
  static const std::vector<MemoryCgroup> cgroups = memory_cgroups("/proc/self", "");
  memory.cgroup = headroom(cgroups);
  const rlim_t limit = address_space_limit();
  if (limit != RLIM_INFINITY) {
    const std::size_t mapped = kib_field("/proc/self/status", "VmSize");
    memory.address_space = limit > mapped ? limit - mapped : 0;
  }
  return memory;
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
