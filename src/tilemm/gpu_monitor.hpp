// The GPU's clock and power while a kernel's timed runs go on, read through NVML, the library
// behind nvidia-smi. On the H200 a double GEMM holds the board at its 700 W power cap, where the SM
// clock falls from 1980 MHz to as low as 1620 and the same kernel runs 3-5% slower held than in
// short runs (perf/LOG.md v13, v15): a GPU figure is comparable with another only at the clocks
// each ran, so results carry them.
//
// NVML is loaded at run time (libnvidia-ml.so.1, which the NVIDIA driver installs beside
// libcuda.so.1): a machine or container without it still runs tilemm, and its results say why they
// have no telemetry.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tilemm/result.hpp"

namespace tilemm {

/// One reading of the GPU.
struct GpuSample {
  double sm_clock_mhz = 0;
  double power_w = -1;             // < 0: no reading
  std::uint64_t clock_events = 0;  // NVML's clock event reasons, a bit each
};

/// NVML's clock event reasons that tilemm reports (nvml.h: nvmlClocksEventReason*).
namespace clock_event {
constexpr std::uint64_t kSwPowerCap = 0x4;
constexpr std::uint64_t kThermal = 0x20 | 0x40;  // software, hardware thermal slowdown
}  // namespace clock_event

/// The samples' median and lowest SM clock, median power (of the samples that have one), and the
/// fractions of samples with the power cap or a thermal slowdown. Nothing without samples.
std::optional<GpuTelemetry> summarize(const std::vector<GpuSample>& samples);

/// NVML opened for one GPU.
class GpuMonitor {
 public:
  using Facts = std::vector<std::pair<std::string, std::string>>;
  static constexpr std::chrono::milliseconds kPeriod{10};

  /// Opens NVML for the GPU at PCI bus id `pci_bus_id` (as cudaDeviceGetPCIBusId gives it). When
  /// that fails, or TILEMM_GPU_TELEMETRY=off, the monitor is unavailable, and facts() says why.
  explicit GpuMonitor(const std::string& pci_bus_id);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  bool available() const { return nvml_ != nullptr; }
  /// For the results' context: gpu_telemetry ("NVML <version>, every 10 ms", or "unavailable:
  /// <why>"), and the board's power limit and highest SM clock.
  const Facts& facts() const { return facts_; }
  /// A reading now.
  GpuSample sample() const;

  /// Samples the GPU every kPeriod on a thread of its own, from construction until finish() (or
  /// destruction): around a kernel's timed runs.
  class Watch {
   public:
    explicit Watch(const GpuMonitor* monitor);
    ~Watch();
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
    /// Stops sampling (one last sample) and summarizes; nothing when the monitor is unavailable.
    std::optional<GpuTelemetry> finish();

   private:
    void stop();
    const GpuMonitor* monitor_;
    std::vector<GpuSample> samples_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
  };

 private:
  /// Loads NVML and finds the GPU: "" when it can be read, else why not.
  std::string open(const std::string& pci_bus_id);

  struct Nvml;  // the library's functions and the device handle
  std::unique_ptr<Nvml> nvml_;
  Facts facts_;
};

}  // namespace tilemm
