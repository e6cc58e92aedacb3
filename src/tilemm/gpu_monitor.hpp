// The GPU's clock and power while a kernel's timed runs go on, read through NVML, the library
// behind nvidia-smi. A long GEMM can hold a GPU at its power cap, where the SM clock falls below
// its rated value and the same kernel runs slower held than in short runs (perf/README.md, "The
// power cap"): a GPU figure is comparable with another only at the clocks each ran, so results
// carry them.
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

/// One reading of the GPU; a part NVML did not answer is negative.
struct GpuSample {
  double sm_clock_mhz = -1;
  double power_w = -1;
  std::int64_t clock_events = -1;  // NVML's clock event reasons, a bit each
};

/// NVML's clock event reasons that tilemm reports (nvml.h: nvmlClocksEventReason*).
namespace clock_event {
constexpr std::int64_t kSwPowerCap = 0x4;
// Hardware slowdown, software and hardware thermal slowdown, hardware power brake (an external
// signal, such as from the node's power supply).
constexpr std::int64_t kSlowdown = 0x8 | 0x20 | 0x40 | 0x80;
}  // namespace clock_event

/// The samples' median and lowest SM clock and median power (each of the samples that have one),
/// and the fractions of the samples with event reasons that show the power cap or a slowdown.
/// Nothing without samples; a part no sample has stays negative.
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
  /// For the results' context: gpu_telemetry ("NVML <version>, every 10 ms, power instantaneous",
  /// or "unavailable: <why>"), the GPU's power limit and highest SM clock, and its MIG mode.
  const Facts& facts() const { return facts_; }
  /// A reading now.
  GpuSample sample() const;

  /// Samples the GPU every kPeriod on a thread of its own, from construction until finish() (or
  /// destruction): around a kernel's timed runs. The thread takes no signals (the CLI's handlers
  /// stay on the main thread), and where no thread can be made there are no samples.
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
