#include "tilemm/system_info.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <initializer_list>
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

/// A cgroup's limit in bytes; nullopt for the values that mean none (v1 writes a number near
/// 2^63, rounded down to its page size).
std::optional<std::size_t> limit_of(std::size_t bytes) {
  if (bytes >= (std::size_t(1) << 62)) return std::nullopt;
  return bytes;
}

/// A byte count in a cgroup file; nullopt where the file is missing or says there is no limit
/// (v2 writes "max").
std::optional<std::size_t> cgroup_bytes(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string word;
  if (!(in >> word)) return std::nullopt;
  std::size_t bytes = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), bytes);
  if (error != std::errc() || end != word.data() + word.size()) return std::nullopt;
  return limit_of(bytes);
}

/// The sum of the values of `keys` in a cgroup's memory.stat ("inactive_file 4096"); a key that
/// is absent counts 0.
std::size_t stat_bytes(const std::filesystem::path& file, std::initializer_list<std::string> keys) {
  std::ifstream in(file);
  std::string name;
  std::size_t bytes = 0, sum = 0;
  while (in >> name >> bytes) {
    if (std::find(keys.begin(), keys.end(), name) != keys.end()) sum += bytes;
  }
  return sum;
}

/// A field of /proc/self/mountinfo with its octal escapes ("\\040" for a space) undone.
std::string unescape_mount_field(const std::string& field) {
  std::string text;
  for (std::size_t i = 0; i < field.size(); ++i) {
    const bool escape = field[i] == '\\' && i + 3 < field.size() &&
                        field.find_first_not_of("01234567", i + 1) >= i + 4;
    if (escape) {
      text += char(std::stoi(field.substr(i + 1, 3), nullptr, 8));
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

/// The folder of the process's cgroup (`path`, from /proc/self/cgroup) in hierarchy `h`, whose
/// paths lie below `prefix`; nullopt where the mount does not show it. As the JDK reads cgroups: a
/// path that climbs out of the cgroup namespace ("/../x": the process was moved after the mount)
/// is read at the mount point; a path outside the cgroup the mount shows is not read at all.
std::optional<std::filesystem::path> own_folder(const MemoryHierarchy& h, const std::string& path,
                                                const std::string& prefix) {
  const std::filesystem::path point = prefix + h.point;
  for (const auto& part : std::filesystem::path(path)) {
    if (part == "..") return point;
  }
  std::string below;
  if (h.root == "/") {
    below = path == "/" ? "" : path;
  } else if (path.compare(0, h.root.size(), h.root) == 0 &&
             (path.size() == h.root.size() || path[h.root.size()] == '/')) {
    below = path.substr(h.root.size());
  } else {
    return std::nullopt;
  }
  std::error_code missing;
  const std::filesystem::path folder = prefix + h.point + below;
  if (!std::filesystem::is_directory(folder, missing)) return std::nullopt;
  return folder;
}

/// The folders of a process's memory cgroup and of each cgroup above it, in one hierarchy.
struct MemoryCgroup {
  bool v2 = false;
  std::vector<std::filesystem::path> levels;  // the process's own first, the mount point last
};

MemoryCgroup levels_up(bool v2, std::filesystem::path folder, std::filesystem::path top) {
  folder = folder.lexically_normal();
  top = top.lexically_normal();
  MemoryCgroup cgroup{v2, {folder}};
  while (folder != top && folder.has_relative_path() &&
         folder.string().size() > top.string().size()) {
    folder = folder.parent_path();
    cgroup.levels.push_back(folder);
  }
  return cgroup;
}

std::vector<MemoryCgroup> memory_cgroups(const std::string& proc, const std::string& prefix) {
  std::vector<MemoryCgroup> found;
  for (const auto& h : memory_hierarchies(proc + "/mountinfo")) {
    const auto path = cgroup_path(proc + "/cgroup", h.v2);
    const auto folder = path ? own_folder(h, *path, prefix) : std::nullopt;
    if (folder) found.push_back(levels_up(h.v2, *folder, prefix + h.point));
  }
  return found;
}

/// The memory a cgroup holds that the system cannot reclaim by dropping file cache: its charge
/// less the file pages on the reclaim lists (shared memory and tmpfs files are not among them);
/// nullopt where the charge cannot be read.
std::optional<std::size_t> unreclaimable(const std::filesystem::path& folder, bool v2) {
  const auto usage = cgroup_bytes(folder / (v2 ? "memory.current" : "memory.usage_in_bytes"));
  if (!usage) return std::nullopt;
  // v1's memory.stat counts the cgroups below under "total_"; v2's always does.
  const std::string prefix = v2 ? "" : "total_";
  const std::size_t cache =
      stat_bytes(folder / "memory.stat", {prefix + "active_file", prefix + "inactive_file"});
  return *usage - std::min(cache, *usage);
}

/// The headroom under the limits of each level of each cgroup: the smallest of limit less use.
/// v2's memory.high counts as a limit (past it the system holds the run back, reclaiming); v1's
/// hierarchical_memory_limit adds, at the process's own level, the limits above it that a
/// container's view does not show.
std::optional<std::size_t> headroom(const std::vector<MemoryCgroup>& cgroups) {
  std::optional<std::size_t> smallest;
  const auto take = [&](std::optional<std::size_t> limit, std::size_t used) {
    if (!limit) return;
    const std::size_t room = *limit > used ? *limit - used : 0;
    smallest = std::min(smallest.value_or(room), room);
  };
  for (const auto& cgroup : cgroups) {
    for (const auto& folder : cgroup.levels) {
      const auto used = unreclaimable(folder, cgroup.v2);
      if (!used) continue;
      if (cgroup.v2) {
        take(cgroup_bytes(folder / "memory.max"), *used);
        take(cgroup_bytes(folder / "memory.high"), *used);
      } else {
        take(cgroup_bytes(folder / "memory.limit_in_bytes"), *used);
        if (folder == cgroup.levels.front()) {
          const std::size_t above =
              stat_bytes(folder / "memory.stat", {"hierarchical_memory_limit"});
          if (above != 0) take(limit_of(above), *used);
        }
      }
    }
  }
  return smallest;
}

}  // namespace

std::optional<std::size_t> cgroup_memory_headroom(const std::string& proc,
                                                  const std::string& prefix) {
  return headroom(memory_cgroups(proc, prefix));
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
