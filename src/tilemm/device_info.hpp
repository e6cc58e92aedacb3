// What a backend runs on, for the provenance of results and the plan's memory check: the CPU or
// the GPU, its memory, and on CUDA the GPU's telemetry. Kokkos-free, so that the CLI needs no
// Kokkos types.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilemm {

/// What a backend runs on, for the provenance of results.
struct BackendInfo {
  std::string name;
  int concurrency = 0;
  std::string device;       // CPU model or GPU name
  std::string memory_kind;  // "host memory" or "device memory"
  std::size_t memory_total = 0;
  std::vector<std::pair<std::string, std::string>> details;  // e.g. CUDA versions, SM count
};
BackendInfo describe_backend(const std::string& name);

/// Bytes of the GPU's memory free now, for a GPU backend (0 where CUDA does not answer); nullopt
/// for a host backend.
std::optional<std::size_t> device_memory_free(const std::string& backend);

class GpuMonitor;
/// The GPU `backend` runs on, watched through NVML (gpu_monitor.hpp; opened at first use): for CUDA
/// a monitor, which may be unavailable; nullptr for a CPU backend.
const GpuMonitor* gpu_monitor(const std::string& backend);
/// What the results' context says of the GPU's telemetry on `backend` (gpu_monitor.hpp): on CUDA
/// gpu_telemetry, and the board's power limit and highest SM clock; nothing on a CPU backend.
std::vector<std::pair<std::string, std::string>> telemetry_facts(const std::string& backend);

}  // namespace tilemm
