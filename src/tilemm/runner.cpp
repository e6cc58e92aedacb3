#include "tilemm/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "tilemm/backend_runner.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/gpu_monitor.hpp"
#include "tilemm/system_info.hpp"
#include "tilemm/vendor_library.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace tilemm {

#ifdef KOKKOS_ENABLE_SERIAL
BackendOps serial_backend();
#endif
#ifdef KOKKOS_ENABLE_OPENMP
BackendOps openmp_backend();
#endif
#ifdef KOKKOS_ENABLE_CUDA
BackendOps cuda_backend();
#endif

namespace {

const std::vector<BackendOps>& backends() {
  static const std::vector<BackendOps> all = {
#ifdef KOKKOS_ENABLE_SERIAL
      serial_backend(),
#endif
#ifdef KOKKOS_ENABLE_OPENMP
      openmp_backend(),
#endif
#ifdef KOKKOS_ENABLE_CUDA
      cuda_backend(),
#endif
  };
  return all;
}

const BackendOps& backend(const std::string& name) {
  check_backend(name);
  for (const auto& b : backends()) {
    if (b.name == name) return b;
  }
  throw std::logic_error("unreachable");
}

/// "2684485632 bytes (2.50 GiB)"; a count that saturated (bytes_needed) is "more than 2^64 bytes".
std::string bytes_text(std::size_t bytes) {
  if (bytes == SIZE_MAX) return "more than 2^64 bytes";
  char text[64];
  std::snprintf(text, sizeof(text), "%zu bytes (%.2f GiB)", bytes,
                static_cast<double>(bytes) / (1 << 30));
  return text;
}

}  // namespace

std::vector<std::string> available_backends() {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  return names;
}

std::string default_backend() {
  return lower_case(Kokkos::DefaultExecutionSpace::name());
}

void check_backend(const std::string& name) {
  const auto names = available_backends();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError("--backend '" + name + "': this build of Kokkos has " + list);
  }
}

namespace {

/// Address space OpenBLAS maps for its buffer when a thread first calls it: BUFFER_SIZE on x86-64
/// (32 << 22 bytes) and a page. When the map fails, as under a tight `ulimit -v`, OpenBLAS tries
/// again for ever, and the run hangs in the reference product: the plan keeps it free. (Its other
/// threads' buffers are mapped when it starts, before any plan, and are counted as mapped.)
constexpr std::size_t kOpenBlasBuffer = (std::size_t(32) << 22) + 4096;
/// What a run maps besides its counted matrices before that first call (Kokkos' thread scratch,
/// the heap's growth): under 1 MiB measured, so that a limit just above the refusal would leave
/// OpenBLAS short by that much and hang it, or fail an allocation Kokkos cannot report.
constexpr std::size_t kSetupSlack = std::size_t(16) << 20;

/// Memory a run touches besides its counted matrices after the plan (the BLAS's packed panels,
/// Kokkos' team scratch, the heap's growth), which a cgroup's limit must leave room for: past the
/// limit the system swaps the run out or kills it. Measured on OpenMP with OpenBLAS (peak usage
/// less the matrices; perf/memory_overhead.py): 7-19 MiB on one thread for n = 1536-6144 in
/// double, and 1.2-1.7 MiB more a thread; this holds more than twice that.
std::size_t cgroup_reserve(int threads) {
  return (std::size_t(64) << 20) + std::size_t(std::max(threads, 1)) * (std::size_t(4) << 20);
}

bool blas_is_openblas() {
  static const bool openblas = [] {
    for (const auto& [key, value] : vendor_library::describe(false)) {
      if (key == "blas") return value.rfind("OpenBLAS", 0) == 0;
    }
    return false;
  }();
  return openblas;
}

MemoryRoom memory_room(const std::string& name) {
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return {free_bytes, ""};
    return {};
  }
#endif
  const system_info::HostMemory host = system_info::host_memory();
  return host_memory_room(host, backend(name).concurrency(),
                          host.address_space && blas_is_openblas());
}

}  // namespace

MemoryRoom host_memory_room(const system_info::HostMemory& host, int threads, bool openblas) {
  MemoryRoom room{host.machine, ""};
  // A limit less what it must keep besides the matrices, where that is tighter than the room.
  const auto tighten = [&](std::optional<std::size_t> limit, std::size_t reserve,
                           const std::string& note) {
    const std::size_t bytes = limit && *limit > reserve ? *limit - reserve : 0;
    if (limit && bytes < room.bytes) room = {bytes, note};
  };
  const std::size_t cgroup_keeps = cgroup_reserve(threads);
  tighten(host.cgroup, cgroup_keeps,
          " (under the memory limit of the process's cgroup, such as a batch job's memory request "
          "or a container's limit, less " +
              std::to_string(cgroup_keeps >> 20) +
              " MiB kept for what a run touches besides its matrices: past the limit the system "
              "swaps the run out or kills it)");
  const std::size_t address_space_keeps = openblas ? kOpenBlasBuffer + kSetupSlack : 0;
  tighten(host.address_space, address_space_keeps,
          address_space_keeps == 0
              ? ""
              : " (under ulimit -v, less " + std::to_string(address_space_keeps >> 20) +
                    " MiB kept free for the buffer OpenBLAS maps on its first call and the run's "
                    "small allocations before it)");
  return room;
}

std::size_t memory_available(const std::string& name) {
  return memory_room(name).bytes;
}

std::vector<Plan> plan(const std::vector<Problem>& problems, const std::string& name) {
  const BackendOps& b = backend(name);
  std::vector<Plan> plans;
  for (const auto& p : problems) {
    Plan plan;
    plan.problem = &p;
    for (const auto& run : p.runs) {
      try {
        plan.launches.push_back(b.plan(p, run));
      } catch (const LaunchError& e) {
        throw InputError(p.origin.where() + ": key '" + e.key() + "': kernel '" + run.kernel +
                         "' on " + name + ": " + e.what());
      }
    }
    // The operands, and the partial tiles of the launch that needs the most (a split K).
    plan.bytes_needed = saturating_add(b.bytes_needed(p),
                                       saturating_mul(plan.partial_elements(), p.scalar_bytes()));
    const MemoryRoom room = memory_room(name);
    if (plan.bytes_needed > room.bytes) {
      throw RuntimeFailure(p.origin.where() + ": m=" + std::to_string(p.m) +
                           " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) + " " +
                           to_string(p.precision) + " needs " + bytes_text(plan.bytes_needed) +
                           " of " + (b.on_host ? "host" : "device") + " memory; " +
                           bytes_text(room.bytes) + " are available" + room.note);
    }
    plans.push_back(plan);
  }
  return plans;
}

namespace {

/// A failure inside a problem's setup or run, worded like the plan's refusal: which problem, why,
/// and for a failed allocation the memory the plan counted on. Kokkos reports a failed allocation
/// as std::bad_alloc or (3.x) std::runtime_error, with a traceback note after the first line.
RuntimeFailure run_failure(const Plan& plan, const std::string& backend, const std::exception& e) {
  const std::string what = e.what();
  const std::string why = what.substr(0, what.find('\n'));
  std::string text = plan.problem->origin.where() + ": " + why;
  if (dynamic_cast<const std::bad_alloc*>(&e) || why.find("allocat") != std::string::npos) {
    text += "; the problem needs about " + bytes_text(plan.bytes_needed) + " of " +
            describe_backend(backend).memory_kind + " and " +
            bytes_text(memory_available(backend)) +
            " are available (a limit tilemm cannot see, such as ulimit -d, may be lower)";
  }
  return RuntimeFailure(text);
}

}  // namespace

std::unique_ptr<Session> prepare(const Plan& plan, const std::string& name) {
  const BackendOps& b = backend(name);
  try {
    return b.prepare(plan);
  } catch (const InputError&) {
    throw;  // a matrix file changed since the spec was read: its message names it
  } catch (const RuntimeFailure&) {
    throw;
  } catch (const std::exception& e) {
    throw run_failure(plan, name, e);
  }
}

bool run(const Plan& plan, const std::string& name,
         const std::function<void(const Result&)>& on_result, const StopFlag* stop) {
  const Problem& p = *plan.problem;
  const auto stopped = [&] {
    return stop && *stop;
  };
  if (stopped()) return false;
  const std::unique_ptr<Session> session = prepare(plan, name);
  const double flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
  for (std::size_t r = 0; r < p.runs.size(); ++r) {
    Result res;
    res.problem = &p;
    res.kernel = p.runs[r].kernel;
    res.backend = name;
    res.launch = plan.launches[r];
    res.tolerance = tolerance(p.precision, p.k);

    if (stopped()) return false;
    try {
      session->run(r);
      const double first_error = session->error();
      const auto warmup_start = std::chrono::steady_clock::now();
      const auto warming = [&] {
        return res.warmup_runs < p.warmup ||
               std::chrono::duration<double>(std::chrono::steady_clock::now() - warmup_start)
                       .count() < p.warmup_s;
      };
      while (warming() && !stopped()) {
        session->run(r);
        ++res.warmup_runs;
      }
      std::vector<double> samples;
      GpuMonitor::Watch watch(gpu_monitor(name));
      for (int i = 0; i < p.repeats && !stopped(); ++i) samples.push_back(session->run(r));
      res.gpu = watch.finish();
      // A signal during the last timed run leaves every run done: that result is kept.
      if (int(samples.size()) < p.repeats) return false;
      // A race shows as an error that moves between runs: check the last timed run as well.
      res.error = std::max(first_error, session->error());
      res.time = TimeStats::of(samples);
      if (!p.c_out.empty()) {
        res.c_out = expand_path_template(p.c_out, p, p.runs[r], name);
        session->write_c(res.c_out);
      }
    } catch (const std::exception& e) {
      throw run_failure(plan, name, e);
    }
    res.utc_time = system_info::utc_now();
    res.passed = res.error <= res.tolerance;
    res.gflops = flops / res.time.median * 1e-9;
    res.gflops_best = flops / res.time.min * 1e-9;
    on_result(res);
  }
  return true;
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

BackendInfo describe_backend(const std::string& name) {
  const BackendOps& b = backend(name);
  BackendInfo info;
  info.name = name;
  info.concurrency = b.concurrency();
  info.device = system_info::cpu_model();
  info.memory_kind = "host memory";
  info.memory_total = system_info::host_memory_total();
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") {
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
  return info;
}

}  // namespace tilemm
