// Running problems on a backend: plan (check every launch and the memory, before anything runs),
// then run each problem, validating and timing every kernel. Kokkos-free, so the CLI needs no
// Kokkos types.
#pragma once

#include <algorithm>
#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tilemm/problem.hpp"
#include "tilemm/result.hpp"
#include "tilemm/system_info.hpp"

namespace tilemm {

/// The execution spaces of this Kokkos build, by tilemm's names: "serial", "openmp", "cuda".
std::vector<std::string> available_backends();
/// Kokkos' default execution space, by tilemm's name.
std::string default_backend();
/// Throws InputError naming the available backends when `name` is not one of them.
void check_backend(const std::string& name);

/// A problem checked against a backend: the launch of each of its kernel runs, and its memory need.
struct Plan {
  const Problem* problem = nullptr;
  std::vector<LaunchConfig> launches;  // one per problem->runs
  std::size_t bytes_needed = 0;        // on the backend's memory space
  /// Scalars of a split K's partial tiles: the most that one of the launches needs.
  std::size_t partial_elements() const {
    std::size_t most = 0;
    for (const LaunchConfig& launch : launches) most = std::max(most, launch.partial_elements);
    return most;
  }
};

/// Plans every problem on `backend`. Throws InputError when a launch cannot fit the backend (key
/// 'tile' or 'team_size'), RuntimeFailure when a problem needs more memory than is available.
/// Needs Kokkos initialized.
std::vector<Plan> plan(const std::vector<Problem>& problems, const std::string& backend);

/// Set (from a signal handler) to stop a run at the next repeat.
using StopFlag = volatile std::sig_atomic_t;

/// Runs one planned problem; `on_result` gets each kernel's result as soon as it is validated and
/// timed. Returns false when `stop` was raised before the problem finished.
bool run(const Plan& plan, const std::string& backend,
         const std::function<void(const Result&)>& on_result, const StopFlag* stop);

/// A planned problem's matrices allocated and filled on a backend, with its reference: kernels run
/// on it again and again (the CLI's warm-up and timed runs, tilemm-bench's iterations).
class Session {
 public:
  virtual ~Session() = default;
  /// Resets C to the initial C, runs the problem's kernel run `run` (an index into
  /// plan.problem->runs) once and fences; returns the seconds the kernel took.
  virtual double run(std::size_t run) = 0;
  /// The largest scaled error of C after the last run (validate.hpp); +Inf for NaN or Inf in C.
  virtual double error() const = 0;
  /// Writes C after the last run to `path` as .npy, in the problem's layout.
  virtual void write_c(const std::string& path) const = 0;
};

/// Allocates and fills `plan`'s problem on `backend` and computes its reference. Throws
/// RuntimeFailure when an allocation fails, InputError when a matrix file no longer matches.
std::unique_ptr<Session> prepare(const Plan& plan, const std::string& backend);

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
class GpuMonitor;
/// The GPU `backend` runs on, watched through NVML (gpu_monitor.hpp; opened at first use): for CUDA
/// a monitor, which may be unavailable; nullptr for a CPU backend.
const GpuMonitor* gpu_monitor(const std::string& backend);
/// What the results' context says of the GPU's telemetry on `backend` (gpu_monitor.hpp): on CUDA
/// gpu_telemetry, and the board's power limit and highest SM clock; nothing on a CPU backend.
std::vector<std::pair<std::string, std::string>> telemetry_facts(const std::string& backend);

/// Bytes of the backend's memory a new allocation can get now.
std::size_t memory_available(const std::string& backend);

/// Bytes of memory a new allocation can get, and, where a limit of the process sets that figure,
/// a note that says which (else "").
struct MemoryRoom {
  std::size_t bytes = 0;
  std::string note;
};
/// The room on the host under `host`'s bounds, each limit less what a run needs beside its
/// matrices: under a cgroup's limit, room for what it touches on `threads` threads; under
/// `ulimit -v`, with OpenBLAS (`openblas`), room for the buffer OpenBLAS maps on its first call.
MemoryRoom host_memory_room(const system_info::HostMemory& host, int threads, bool openblas);

}  // namespace tilemm
