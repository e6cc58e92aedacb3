// Facts about the host, read from the operating system (Linux).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "tilemm/types.hpp"

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
  /// The address-space limit (`ulimit -v`) less what the process maps already, or the data limit
  /// (`ulimit -d`) less its data mappings, whichever is smaller.
  std::optional<std::size_t> address_space;
};
HostMemory host_memory();
/// The headroom under the memory limits of the process's cgroup and of each cgroup above it, in
/// the hierarchies named by `self_cgroup` (cgroup v2; cgroup v1's memory controller) and mounted
/// at `mount` (v1's memory controller in its folder "memory"): the smallest of limit (v2's
/// memory.max and memory.high; v1's memory.limit_in_bytes) less the memory charged to that cgroup
/// that the system cannot reclaim. nullopt where no limit applies or none can be read. The
/// defaults are where Linux distributions, batch systems and container runtimes put them; other
/// paths are for tests.
std::optional<std::size_t> cgroup_memory_headroom(
    const std::string& self_cgroup = "/proc/self/cgroup",
    const std::string& mount = "/sys/fs/cgroup");
/// The data caches of the CPU this process runs on: its first processor's as Linux describes them
/// in sysfs (sysfs_caches), each figure sysfs does not give taken from sysconf
/// (_SC_LEVEL1_DCACHE_SIZE, ...), zero where neither does.
CpuCaches cpu_caches();
/// The data and unified caches a sysfs folder describes (index*/level, type, size,
/// ways_of_associativity, coherency_line_size, as in /sys/devices/system/cpu/cpu0/cache); zero
/// for what it does not.
CpuCaches sysfs_caches(const std::string& folder);
/// The caches as the results' context records them: "L1d 49152 B 12-way, L2 ..., 64-byte lines",
/// a figure the system did not report as "unreported".
std::string caches_text(const CpuCaches& caches);
/// The time now in UTC, ISO 8601 to the second: "2026-11-25T12:07:37Z".
std::string utc_now();

}  // namespace tilemm::system_info
