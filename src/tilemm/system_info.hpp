// Facts about the host, read from the operating system (Linux).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace tilemm::system_info {

std::string cpu_model();  // "model name" of /proc/cpuinfo
std::string hostname();
std::size_t host_memory_total();  // bytes
/// What bounds a new host allocation, in bytes: the machine's free memory, and the limits on the
/// process, where there are any.
struct HostMemory {
  std::size_t machine = 0;  // MemAvailable
  /// The headroom under the memory limits of the process's cgroups (cgroup_memory_headroom): a
  /// batch job's memory request or a container's limit, past which the system kills the process.
  std::optional<std::size_t> cgroup;
  /// The address-space limit (`ulimit -v`) less what the process maps already.
  std::optional<std::size_t> address_space;
};
HostMemory host_memory();
/// The headroom under the memory limits of the process's cgroup and of each cgroup above it
/// (cgroup v1's memory controller or cgroup v2): the smallest of limit less the memory charged
/// to that cgroup, less its inactive file cache, which the kernel reclaims before it kills
/// (the working set, as container runtimes count it). nullopt where no limit applies or none can
/// be read. `proc` is the process's folder in /proc; `root` is put before every path that
/// /proc/self/mountinfo names (both for tests).
std::optional<std::size_t> cgroup_memory_headroom(const std::string& proc = "/proc/self",
                                                  const std::string& root = "");
/// The time now in UTC, ISO 8601 to the second: "2026-11-25T12:07:37Z".
std::string utc_now();

}  // namespace tilemm::system_info
