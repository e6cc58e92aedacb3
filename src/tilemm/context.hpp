// The provenance a backend comparison needs with every set of results: what ran, where, built how.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tilemm/device_info.hpp"
#include "tilemm/spec.hpp"

namespace tilemm {

struct RunContext {
  std::string tilemm_version, git_hash;
  std::string kokkos_version, kokkos_kernels_version, kokkos_arch;
  std::vector<std::string> kokkos_backends;  // every backend this build has
  BackendInfo backend;                       // the one used
  // The host's threads: the backend's on a CPU, the host execution space's beside a GPU.
  int host_threads = 0;
  std::string kokkos_configuration;          // Kokkos::print_configuration, in detail
  std::string kokkos_kernels_configuration;  // Kokkos Kernels' own (4.x); "" where it has none
  std::string compiler, build_type;
  std::vector<std::pair<std::string, std::string>>
      environment;  // OMP_*, KOKKOS_*, CUDA_VISIBLE_DEVICES
  std::string utc_time, hostname;
  std::string cpu_affinity;                      // the processors this process may run on: "0-3,8"
  std::string slurm_job_id, slurm_job_nodelist;  // under Slurm; "" outside it
  std::vector<std::string> command_line;
  std::vector<InputFile> inputs;   // the spec files and .npy files read, with their SHA-256
  std::vector<std::string> ranks;  // in an MPI run of several ranks: each rank's "host: device"
  /// What the command line narrowed the specs to: each option given ("--kernels") with its values.
  std::vector<std::pair<std::string, std::vector<std::string>>> selection;
};

/// Reads the processors this process may run on, for the context's cpu_affinity. The OpenMP
/// runtime pins the main thread to one of them as it loads, before main() (OMP_PROC_BIND=spread
/// leaves it one processor): an executable calls this from its .preinit_array, which runs before
/// any library's initialization (TILEMM_READ_CPU_AFFINITY_AT_START). Uses no C++ runtime.
void read_start_cpu_affinity() noexcept;

/// Put in an executable's source at namespace scope: read_start_cpu_affinity() before any library
/// starts. (ELF's .preinit_array; a shared library cannot have one.)
#define TILEMM_READ_CPU_AFFINITY_AT_START                                                      \
  extern "C" void tilemm_read_cpu_affinity(int, char**, char**) {                              \
    tilemm::read_start_cpu_affinity();                                                         \
  }                                                                                            \
  __attribute__((section(".preinit_array"), used)) void (*const tilemm_cpu_affinity_at_start)( \
      int, char**, char**) = tilemm_read_cpu_affinity;

/// Gathers the context of a run on `backend` (Kokkos initialized) that read `inputs`.
RunContext gather_context(const std::string& backend, std::vector<InputFile> inputs,
                          const std::vector<std::string>& command_line);

/// The version of the Kokkos tilemm is built with: "4.6.1".
std::string kokkos_version();

/// "tilemm 0.1.0 (git abc123)" with the Kokkos versions, for --version.
std::string version_text();

}  // namespace tilemm
