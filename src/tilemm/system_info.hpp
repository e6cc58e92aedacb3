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
  /// batch job's memory request or a container's limit, past which the system swaps the process
  /// out, holds it back (cgroup v2's memory.high) or kills it.
  std::optional<std::size_t> cgroup;
  /// The address-space limit (`ulimit -v`) less what the process maps already.
  std::optional<std::size_t> address_space;
};
HostMemory host_memory();
/// The headroom under the memory limits of the process's cgroup and of each cgroup above it
/// (cgroup v1's memory controller; cgroup v2's memory.max and memory.high): the smallest of limit
/// less the memory charged to that cgroup that the system cannot reclaim (its charge less its file
/// cache, active and inactive, which the system drops before it kills). nullopt where no limit
/// applies or none can be read. `proc` is the process's folder in /proc; `prefix` is put before
/// every path that /proc/self/mountinfo names (both for tests).
std::optional<std::size_t> cgroup_memory_headroom(const std::string& proc = "/proc/self",
                                                  const std::string& prefix = "");
/// The time now in UTC, ISO 8601 to the second: "2026-11-25T12:07:37Z".
std::string utc_now();

}  // namespace tilemm::system_info
