// Facts about the host, read from the operating system (Linux).
#pragma once

#include <cstddef>
#include <string>

namespace tilemm::system_info {

std::string cpu_model();  // "model name" of /proc/cpuinfo
std::string hostname();
std::size_t host_memory_total();  // bytes
/// Bytes a new host allocation can get: MemAvailable, capped by the address-space limit
/// (`ulimit -v`) minus what the process already maps and minus `reserved`, address space that
/// something other than the allocation is still to map.
std::size_t host_memory_available(std::size_t reserved = 0);
/// Whether an address-space limit (`ulimit -v`) applies to the process.
bool address_space_limited();
/// The time now in UTC, ISO 8601 to the second: "2026-11-25T12:07:37Z".
std::string utc_now();

}  // namespace tilemm::system_info
