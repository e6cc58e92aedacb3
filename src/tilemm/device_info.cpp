#include "tilemm/device_info.hpp"

#include <Kokkos_Core.hpp>

#include "tilemm/backends.hpp"
#include "tilemm/gpu_monitor.hpp"
#include "tilemm/system_info.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace tilemm {
namespace {

#ifdef KOKKOS_ENABLE_CUDA
/// The GPU Kokkos runs on: its name and memory, and its CUDA facts as the results list them.
void describe_cuda_device(BackendInfo& info) {
  const int device = Kokkos::Cuda().cuda_device();
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  auto version = [](int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  };
  info.device = prop.name;
  info.memory_kind = "device memory";
  info.memory_total = prop.totalGlobalMem;
  info.details = {
      {"cuda_device_id", std::to_string(device)},
      {"cuda_compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
      {"cuda_multiprocessors", std::to_string(prop.multiProcessorCount)},
      {"cuda_runtime_version", version(runtime)},
      {"cuda_driver_version", version(driver)},
      {"host_cpu", system_info::cpu_model()}};
}
#endif

}  // namespace

BackendInfo describe_backend(const std::string& name) {
  const BackendOps& b = backend_ops(name);
  BackendInfo info;
  info.name = name;
  info.concurrency = b.concurrency();
  info.device = system_info::cpu_model();
  info.memory_kind = "host memory";
  info.memory_total = system_info::host_memory_total();
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") describe_cuda_device(info);
#endif
  return info;
}

std::optional<std::size_t> device_memory_free(const std::string& name) {
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return free_bytes;
    return 0;
  }
#endif
  (void)name;
  return std::nullopt;
}

const GpuMonitor* gpu_monitor(const std::string& name) {
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") {
    static const GpuMonitor monitor([] {
      char bus_id[64] = "";
      cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), Kokkos::Cuda().cuda_device());
      return std::string(bus_id);
    }());
    return &monitor;
  }
#endif
  (void)name;
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> telemetry_facts(const std::string& name) {
  const GpuMonitor* monitor = gpu_monitor(name);
  return monitor ? monitor->facts() : std::vector<std::pair<std::string, std::string>>{};
}

}  // namespace tilemm
