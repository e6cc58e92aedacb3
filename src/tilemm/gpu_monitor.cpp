#include "tilemm/gpu_monitor.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#ifdef TILEMM_HAVE_NVML
#include <nvml.h>
#endif

namespace tilemm {
namespace {

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

std::optional<GpuTelemetry> summarize(const std::vector<GpuSample>& samples) {
  if (samples.empty()) return std::nullopt;
  GpuTelemetry t;
  t.samples = static_cast<int>(samples.size());
  std::vector<double> clocks, powers;
  int capped = 0, thermal = 0;
  for (const GpuSample& s : samples) {
    clocks.push_back(s.sm_clock_mhz);
    if (s.power_w >= 0) powers.push_back(s.power_w);
    capped += (s.clock_events & clock_event::kSwPowerCap) != 0;
    thermal += (s.clock_events & clock_event::kThermal) != 0;
  }
  t.sm_clock_mhz = median_of(clocks);
  t.sm_clock_mhz_min = *std::min_element(clocks.begin(), clocks.end());
  if (!powers.empty()) t.power_w = median_of(powers);
  t.power_capped = double(capped) / double(samples.size());
  t.thermal_slowdown = double(thermal) / double(samples.size());
  return t;
}

#ifdef TILEMM_HAVE_NVML

struct GpuMonitor::Nvml {
  void* library = nullptr;
  nvmlDevice_t device{};
  decltype(&nvmlShutdown) shutdown = nullptr;
  decltype(&nvmlDeviceGetClockInfo) clock = nullptr;
  decltype(&nvmlDeviceGetCurrentClocksEventReasons) clock_events = nullptr;
  decltype(&nvmlDeviceGetFieldValues) field_values = nullptr;
  decltype(&nvmlDeviceGetPowerUsage) power_usage = nullptr;
  bool instant_power = false;  // NVML_FI_DEV_POWER_INSTANT answers; else the driver's average

  ~Nvml() {
    if (shutdown) shutdown();
    if (library) dlclose(library);
  }
  template <class Function>
  bool find(Function& f, const char* name) {
    f = reinterpret_cast<Function>(dlsym(library, name));
    return f != nullptr;
  }
  /// The board's power now, in watts; < 0 when it gives none.
  double power() const {
    if (instant_power) {
      nvmlFieldValue_t field{};
      field.fieldId = NVML_FI_DEV_POWER_INSTANT;
      if (field_values(device, 1, &field) == NVML_SUCCESS && field.nvmlReturn == NVML_SUCCESS) {
        return field.value.uiVal / 1000.0;  // milliwatts, an unsigned int
      }
      return -1;
    }
    unsigned int milliwatts = 0;
    return power_usage(device, &milliwatts) == NVML_SUCCESS ? milliwatts / 1000.0 : -1;
  }
};

std::string GpuMonitor::open(const std::string& pci_bus_id) {
  auto nvml = std::make_unique<Nvml>();
  nvml->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!nvml->library) return "libnvidia-ml.so.1 (NVML) could not be loaded";
  decltype(&nvmlInit_v2) init = nullptr;
  decltype(&nvmlErrorString) error_string = nullptr;
  decltype(&nvmlDeviceGetHandleByPciBusId_v2) by_bus_id = nullptr;
  decltype(&nvmlSystemGetNVMLVersion) version = nullptr;
  decltype(&nvmlDeviceGetEnforcedPowerLimit) power_limit = nullptr;
  decltype(&nvmlDeviceGetMaxClockInfo) max_clock = nullptr;
  // Older drivers name the clock event reasons throttle reasons, with the same bits.
  const bool found =
      nvml->find(init, "nvmlInit_v2") && nvml->find(nvml->shutdown, "nvmlShutdown") &&
      nvml->find(error_string, "nvmlErrorString") &&
      nvml->find(by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2") &&
      nvml->find(version, "nvmlSystemGetNVMLVersion") &&
      nvml->find(power_limit, "nvmlDeviceGetEnforcedPowerLimit") &&
      nvml->find(max_clock, "nvmlDeviceGetMaxClockInfo") &&
      nvml->find(nvml->clock, "nvmlDeviceGetClockInfo") &&
      (nvml->find(nvml->clock_events, "nvmlDeviceGetCurrentClocksEventReasons") ||
       nvml->find(nvml->clock_events, "nvmlDeviceGetCurrentClocksThrottleReasons")) &&
      nvml->find(nvml->field_values, "nvmlDeviceGetFieldValues") &&
      nvml->find(nvml->power_usage, "nvmlDeviceGetPowerUsage");
  if (!found) {
    nvml->shutdown = nullptr;  // never initialized
    return "libnvidia-ml.so.1 lacks a function tilemm reads";
  }
  if (const nvmlReturn_t status = init(); status != NVML_SUCCESS) {
    nvml->shutdown = nullptr;
    return std::string("nvmlInit: ") + error_string(status);
  }
  if (const nvmlReturn_t status = by_bus_id(pci_bus_id.c_str(), &nvml->device);
      status != NVML_SUCCESS) {
    return "no NVML device at PCI bus id " + pci_bus_id + ": " + error_string(status);
  }
  unsigned int clock = 0;
  if (const nvmlReturn_t status = nvml->clock(nvml->device, NVML_CLOCK_SM, &clock);
      status != NVML_SUCCESS) {
    return std::string("the SM clock: ") + error_string(status);
  }
  nvmlFieldValue_t field{};
  field.fieldId = NVML_FI_DEV_POWER_INSTANT;
  nvml->instant_power = nvml->field_values(nvml->device, 1, &field) == NVML_SUCCESS &&
                        field.nvmlReturn == NVML_SUCCESS &&
                        field.valueType == NVML_VALUE_TYPE_UNSIGNED_INT;

  char text[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE] = "";
  version(text, sizeof(text));
  facts_.emplace_back("gpu_telemetry",
                      std::string("NVML ") + text + ", every " + std::to_string(kPeriod.count()) +
                          " ms, power " +
                          (nvml->instant_power ? "instantaneous" : "as the driver averages it"));
  unsigned int milliwatts = 0;
  if (power_limit(nvml->device, &milliwatts) == NVML_SUCCESS) {
    facts_.emplace_back("gpu_power_limit_w", std::to_string(milliwatts / 1000));
  }
  if (max_clock(nvml->device, NVML_CLOCK_SM, &clock) == NVML_SUCCESS) {
    facts_.emplace_back("gpu_sm_clock_max_mhz", std::to_string(clock));
  }
  nvml_ = std::move(nvml);
  return "";
}

GpuSample GpuMonitor::sample() const {
  GpuSample s;
  unsigned int clock = 0;
  if (nvml_->clock(nvml_->device, NVML_CLOCK_SM, &clock) == NVML_SUCCESS) s.sm_clock_mhz = clock;
  unsigned long long events = 0;
  if (nvml_->clock_events(nvml_->device, &events) == NVML_SUCCESS) s.clock_events = events;
  s.power_w = nvml_->power();
  return s;
}

#else  // built without nvml.h

struct GpuMonitor::Nvml {};

std::string GpuMonitor::open(const std::string&) {
  return "tilemm was built without NVML's header (nvml.h)";
}

GpuSample GpuMonitor::sample() const {
  return {};
}

#endif

GpuMonitor::GpuMonitor(const std::string& pci_bus_id) {
  const char* setting = std::getenv("TILEMM_GPU_TELEMETRY");
  const std::string why =
      setting && !std::strcmp(setting, "off") ? "off (TILEMM_GPU_TELEMETRY=off)" : open(pci_bus_id);
  if (!why.empty()) facts_ = {{"gpu_telemetry", "unavailable: " + why}};
}

GpuMonitor::~GpuMonitor() = default;

GpuMonitor::Watch::Watch(const GpuMonitor* monitor) : monitor_(monitor) {
  if (!monitor_ || !monitor_->available()) return;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      lock.unlock();
      const GpuSample s = monitor_->sample();
      lock.lock();
      samples_.push_back(s);
      if (stopping_ || wake_.wait_for(lock, kPeriod, [this] { return stopping_; })) break;
    }
  });
}

void GpuMonitor::Watch::stop() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  samples_.push_back(monitor_->sample());  // the end of the runs
}

GpuMonitor::Watch::~Watch() {
  stop();
}

std::optional<GpuTelemetry> GpuMonitor::Watch::finish() {
  stop();
  return summarize(samples_);
}

}  // namespace tilemm
