#include "tilemm/gpu_monitor.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <system_error>

#ifdef TILEMM_HAVE_NVML
#include <nvml.h>
#endif

namespace tilemm {

std::optional<GpuTelemetry> summarize(const std::vector<GpuSample>& samples) {
  if (samples.empty()) return std::nullopt;
  GpuTelemetry t;
  t.samples = static_cast<int>(samples.size());
  std::vector<double> clocks, powers;
  int with_events = 0, capped = 0, slowed = 0;
  for (const GpuSample& s : samples) {
    if (s.sm_clock_mhz >= 0) clocks.push_back(s.sm_clock_mhz);
    if (s.power_w >= 0) powers.push_back(s.power_w);
    if (s.clock_events < 0) continue;
    ++with_events;
    capped += (s.clock_events & clock_event::kSwPowerCap) != 0;
    slowed += (s.clock_events & clock_event::kSlowdown) != 0;
  }
  if (!clocks.empty()) {
    t.sm_clock_mhz = median_of(clocks);
    t.sm_clock_mhz_min = *std::min_element(clocks.begin(), clocks.end());
  }
  if (!powers.empty()) t.power_w = median_of(powers);
  if (with_events > 0) {
    t.power_capped = double(capped) / with_events;
    t.slowdown = double(slowed) / with_events;
  }
  return t;
}

#ifdef TILEMM_HAVE_NVML

struct GpuMonitor::Nvml {
  void* library = nullptr;
  nvmlDevice_t device{};
  decltype(&nvmlShutdown) shutdown = nullptr;
  decltype(&nvmlDeviceGetClockInfo) clock = nullptr;
  // (Declared here: nvml.h before CUDA 12.2 has only the older name, with this signature.)
  nvmlReturn_t (*clock_events)(nvmlDevice_t, unsigned long long*) = nullptr;
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
  /// The GPU's power now, in watts; < 0 when it gives none.
  double power() const {
#ifdef NVML_FI_DEV_POWER_INSTANT  // (nvml.h before CUDA 12.3 lacks it: the driver's average then)
    if (instant_power) {
      nvmlFieldValue_t field{};
      field.fieldId = NVML_FI_DEV_POWER_INSTANT;
      if (field_values(device, 1, &field) == NVML_SUCCESS && field.nvmlReturn == NVML_SUCCESS &&
          field.valueType == NVML_VALUE_TYPE_UNSIGNED_INT) {
        return field.value.uiVal / 1000.0;  // milliwatts
      }
      return -1;
    }
#endif
    unsigned int milliwatts = 0;
    return power_usage(device, &milliwatts) == NVML_SUCCESS ? milliwatts / 1000.0 : -1;
  }
};

std::string GpuMonitor::open(const std::string& pci_bus_id) {
  auto nvml = std::make_unique<Nvml>();
  nvml->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!nvml->library) return std::string("NVML could not be loaded: ") + dlerror();
  decltype(&nvmlInit_v2) init = nullptr;
  decltype(&nvmlErrorString) error_string = nullptr;
  decltype(&nvmlDeviceGetHandleByPciBusId_v2) by_bus_id = nullptr;
  decltype(&nvmlSystemGetNVMLVersion) version = nullptr;
  decltype(&nvmlDeviceGetEnforcedPowerLimit) power_limit = nullptr;
  decltype(&nvmlDeviceGetMaxClockInfo) max_clock = nullptr;
  decltype(&nvmlDeviceGetMigMode) mig_mode = nullptr;
  std::string missing;
  const auto need = [&](auto& f, const char* name) {
    if (!nvml->find(f, name) && missing.empty()) missing = name;
  };
  need(init, "nvmlInit_v2");
  need(nvml->shutdown, "nvmlShutdown");
  need(error_string, "nvmlErrorString");
  need(by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  need(version, "nvmlSystemGetNVMLVersion");
  need(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  need(max_clock, "nvmlDeviceGetMaxClockInfo");
  nvml->find(mig_mode, "nvmlDeviceGetMigMode");  // (drivers before MIG have none)
  need(nvml->clock, "nvmlDeviceGetClockInfo");
  need(nvml->field_values, "nvmlDeviceGetFieldValues");
  need(nvml->power_usage, "nvmlDeviceGetPowerUsage");
  // Drivers before CUDA 12.2's name the clock event reasons throttle reasons, with the same bits.
  if (!nvml->find(nvml->clock_events, "nvmlDeviceGetCurrentClocksEventReasons")) {
    need(nvml->clock_events, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  if (!missing.empty()) {
    nvml->shutdown = nullptr;  // never initialized
    return "libnvidia-ml.so.1 has no " + missing;
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
#ifdef NVML_FI_DEV_POWER_INSTANT
  // The instantaneous reading where the GPU gives one (power() asks for it, then).
  nvml->instant_power = true;
  nvml->instant_power = nvml->power() >= 0;
#endif

  char text[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE] = "";
  version(text, sizeof(text));
  facts_.emplace_back("gpu_telemetry",
                      std::string("NVML ") + text + ", every " + std::to_string(kPeriod.count()) +
                          " ms, power " +
                          (nvml->instant_power ? "instantaneous"
                                               : "as the driver averages it (over 1 s on Ampere "
                                                 "and newer GPUs)"));
  unsigned int milliwatts = 0;
  if (power_limit(nvml->device, &milliwatts) == NVML_SUCCESS) {
    facts_.emplace_back("gpu_power_limit_w", std::to_string(milliwatts / 1000));
  }
  if (max_clock(nvml->device, NVML_CLOCK_SM, &clock) == NVML_SUCCESS) {
    facts_.emplace_back("gpu_sm_clock_max_mhz", std::to_string(clock));
  }
  // Under MIG the readings are the whole GPU's, other tenants' work included.
  unsigned int mig = 0, pending = 0;
  if (mig_mode && mig_mode(nvml->device, &mig, &pending) == NVML_SUCCESS) {
    facts_.emplace_back("gpu_mig_mode", mig == NVML_DEVICE_MIG_ENABLE
                                            ? "enabled: the readings are the whole GPU's"
                                            : "disabled");
  }
  nvml_ = std::move(nvml);
  return "";
}

GpuSample GpuMonitor::sample() const {
  GpuSample s;
  unsigned int clock = 0;
  if (nvml_->clock(nvml_->device, NVML_CLOCK_SM, &clock) == NVML_SUCCESS) s.sm_clock_mhz = clock;
  unsigned long long events = 0;
  if (nvml_->clock_events(nvml_->device, &events) == NVML_SUCCESS) {
    s.clock_events = static_cast<std::int64_t>(events & 0x7fffffffffffffffULL);
  }
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
  // A signal for the process goes to a thread that does not block it: blocked here, the CLI's
  // handlers run on the main thread, and no NVML call of the sampler is interrupted.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  try {
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
  } catch (const std::system_error&) {
    // No thread to be had (a process limit): the runs go on without samples.
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
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
