#include "tilemm/context.hpp"

#include <sched.h>

#include <cstdlib>
#include <sstream>
#include <utility>

#include <Kokkos_Core.hpp>
#if __has_include(<KokkosKernels_PrintConfiguration.hpp>)  // Kokkos Kernels 4.x
#include <KokkosKernels_PrintConfiguration.hpp>
#define TILEMM_HAS_KOKKOSKERNELS_CONFIGURATION 1
#endif

#include "tilemm/backends.hpp"
#include "tilemm/build_info.hpp"  // generated at configure time
#include "tilemm/kernels/cpu/blocking.hpp"
#include "tilemm/kernels/host_vector.hpp"
#include "tilemm/system_info.hpp"
#include "tilemm/vendor_library.hpp"
#include "tilemm/version_info.hpp"  // generated at build time: TILEMM_GIT_HASH

namespace tilemm {

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100);
}

namespace {

/// The processors the process could run on when it started (read_start_cpu_affinity), zero-filled
/// at load time: plain data, which code that runs before any constructor may write.
cpu_set_t g_start_affinity;
bool g_start_affinity_read = false;

/// The processors this process may run on, as ranges: "0-3,8"; "" when the system does not say.
/// Those it could run on when it started, where they were read then.
std::string cpu_affinity() {
  cpu_set_t set = g_start_affinity;
  if (!g_start_affinity_read) {
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  }
  std::string text;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(cpu);
    if (last > cpu) text += "-" + std::to_string(last);
    cpu = last;
  }
  return text;
}

std::string kokkos_configuration() {
  std::ostringstream text;
  Kokkos::print_configuration(text, true);
  return text.str();
}

std::string kokkos_kernels_configuration() {
#ifdef TILEMM_HAS_KOKKOSKERNELS_CONFIGURATION
  std::ostringstream text;
  KokkosKernels::print_configuration(text);
  return text.str();
#else
  return "";
#endif
}

/// The CPU schedule's blocks for these caches (kernels/cpu/blocking.hpp), each precision's
/// micro-kernel MR x NR and kc, nb, nc: "float 12x32 kc 256 nb 512 nc 65536; double ...", and the
/// vector registers the build's micro-kernel is compiled for.
std::string cpu_blocks_text(const CpuCaches& caches) {
  const auto blocks = [&](const char* name, int bytes, int mr, int nr) {
    const kernels::cpu::Blocks b = kernels::cpu::blocks_for(caches, bytes, mr, nr);
    return std::string(name) + " " + std::to_string(b.mr) + "x" + std::to_string(b.nr) + " kc " +
           std::to_string(b.kc) + " nb " + std::to_string(b.nb) + " nc " + std::to_string(b.nc);
  };
  return blocks("float", 4, kernels::kCpuTileRows<float>, kernels::kCpuTileCols<float>) + "; " +
         blocks("double", 8, kernels::kCpuTileRows<double>, kernels::kCpuTileCols<double>) + "; " +
         (kernels::kHostVectors ? std::to_string(8 * kernels::kHostVectorBytes) + "-bit vectors"
                                : std::string("no vector types"));
}

std::string environment_value(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

void read_start_cpu_affinity() noexcept {
  CPU_ZERO(&g_start_affinity);
  g_start_affinity_read = sched_getaffinity(0, sizeof g_start_affinity, &g_start_affinity) == 0;
}

std::string version_text() {
  return std::string("tilemm ") + TILEMM_VERSION + " (git " + TILEMM_GIT_HASH + ")\nKokkos " +
         kokkos_version() + ", Kokkos Kernels " + TILEMM_KOKKOSKERNELS_VERSION + "\n";
}

RunContext gather_context(const std::string& backend, std::vector<InputFile> inputs,
                          const std::vector<std::string>& command_line) {
  RunContext c;
  c.tilemm_version = TILEMM_VERSION;
  c.git_hash = TILEMM_GIT_HASH;
  c.kokkos_version = kokkos_version();
  c.kokkos_kernels_version = TILEMM_KOKKOSKERNELS_VERSION;
  c.kokkos_arch = TILEMM_KOKKOS_ARCH;
  c.kokkos_backends = available_backends();
  c.backend = describe_backend(backend);
  // The library kokkos-kernels calls and the GPU's telemetry, after the backend's own facts. Here,
  // once a run, and not in describe_backend(), which a failed allocation's message also calls.
  for (auto& fact : vendor_library::describe(backend == "cuda"))
    c.backend.details.push_back(std::move(fact));
  for (auto& fact : telemetry_facts(backend)) c.backend.details.push_back(std::move(fact));
  // On a CPU backend: the caches the CPU schedule's blocks come from, and the blocks.
  if (c.backend.memory_kind == "host memory") {
    const CpuCaches caches = system_info::cpu_caches();
    c.backend.details.emplace_back("cpu_caches", system_info::caches_text(caches));
    c.backend.details.emplace_back("cpu_blocks", cpu_blocks_text(caches));
  }
  c.host_threads = c.backend.memory_kind == "host memory"
                       ? c.backend.concurrency
                       : Kokkos::DefaultHostExecutionSpace().concurrency();
  c.kokkos_configuration = kokkos_configuration();
  c.kokkos_kernels_configuration = kokkos_kernels_configuration();
  c.compiler = TILEMM_COMPILER;
  c.build_type = TILEMM_BUILD_TYPE;
  for (const char* name :
       {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_SCHEDULE", "OMP_DYNAMIC",
        "KOKKOS_NUM_THREADS", "KOKKOS_DEVICE_ID", "CUDA_VISIBLE_DEVICES", "OPENBLAS_NUM_THREADS",
        "OPENBLAS_CORETYPE", "BLIS_NUM_THREADS", "MKL_NUM_THREADS", "TILEMM_GPU_TELEMETRY",
        "NCCL_CTA_POLICY", "NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_NVLS_ENABLE"}) {
    c.environment.emplace_back(name, environment_value(name));
  }
  c.utc_time = system_info::utc_now();
  c.hostname = system_info::hostname();
  c.cpu_affinity = cpu_affinity();
  c.slurm_job_id = environment_value("SLURM_JOB_ID");
  if (!c.slurm_job_id.empty()) c.slurm_job_nodelist = environment_value("SLURM_JOB_NODELIST");
  c.command_line = command_line;
  c.inputs = std::move(inputs);
  return c;
}

}  // namespace tilemm
