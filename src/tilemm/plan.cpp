#include "tilemm/plan.hpp"

#include <cstdint>
#include <cstdio>
#include <optional>

#include <Kokkos_Core.hpp>

#include "tilemm/backends.hpp"
#include "tilemm/device_info.hpp"
#include "tilemm/distributed/block_cyclic.hpp"
#include "tilemm/distributed/world.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/kernels/launch_error.hpp"
#include "tilemm/vendor_library.hpp"

namespace tilemm {
namespace {

/// Address space kept free under `ulimit -v` or `ulimit -d` for each buffer OpenBLAS maps on its
/// first call (BUFFER_SIZE on x86-64, 32 << 22 bytes, and a page), which it would otherwise wait
/// for for ever and so hang the run, and once for the run's small allocations before that call.
constexpr std::size_t kOpenBlasBuffer = (std::size_t(128) << 20) + 4096;
constexpr std::size_t kSmallAllocations = std::size_t(16) << 20;

/// Memory a run touches besides its counted matrices (the BLAS's packed panels, Kokkos' team
/// scratch, the heap's growth), which a cgroup's limit must leave room for, since past the limit
/// the system swaps the run out or kills it. This holds more than twice what
/// perf/memory_overhead.py measured (see perf/README.md).
std::size_t cgroup_reserve(int threads) {
  return (std::size_t(64) << 20) + std::size_t(std::max(threads, 1)) * (std::size_t(4) << 20);
}

MemoryRoom memory_room(const std::string& name) {
  if (const std::optional<std::size_t> device = device_memory_free(name)) return {*device, ""};
  const system_info::HostMemory host = system_info::host_memory();
  const int threads = backend_ops(name).concurrency();
  return host_memory_room(
      host, threads,
      host.address_space ? vendor_library::openblas_buffers_on_first_call(threads) : 0);
}

/// The bytes of team scratch Kokkos allocates for each thread of a host backend, for the launch
/// that needs the most: a team's scratch per thread, where the OpenMP backend of Kokkos
/// before 4.6.01 counts level 1 twice (3.4.1 does).
std::size_t host_scratch_bytes(const Plan& plan) {
  std::size_t most = 0;
  for (const LaunchConfig& launch : plan.launches_run()) {
    const bool twice = KOKKOS_VERSION < 40601 && launch.scratch_level == 1;
    most = std::max(most, saturating_mul(launch.scratch_bytes, twice ? 2 : 1));
  }
  return most;
}

}  // namespace

const char* spec_key(kernels::LaunchLimit limit) {
  switch (limit) {
    case kernels::LaunchLimit::TeamSize:
      return "team_size";
    case kernels::LaunchLimit::SplitK:
      return "split_k";
    case kernels::LaunchLimit::M:
      return "m";
    case kernels::LaunchLimit::N:
      return "n";
    case kernels::LaunchLimit::K:
      return "k";
    case kernels::LaunchLimit::Moduli:
      return "moduli";
    case kernels::LaunchLimit::Tile:
      break;
  }
  return "tile";
}

namespace {

/// The launch of each of a problem's kernel runs; a launch that cannot fit is an InputError that
/// names the problem, the key and the kernel.
std::vector<LaunchConfig> launches(const BackendOps& b, const Problem& p) {
  std::vector<LaunchConfig> found;
  for (const KernelRun& run : p.runs) {
    try {
      found.push_back(b.plan(p, run));
    } catch (const kernels::LaunchError& e) {
      throw InputError(p.origin.where() + ": key '" + spec_key(e.limit()) + "': kernel '" +
                       run.kernel + "' on " + b.name + ": " + e.what());
    }
  }
  return found;
}

}  // namespace

LaunchRequest on_this_cpu(LaunchRequest request) {
  static const CpuCaches caches = system_info::cpu_caches();
  request.caches = caches;
  return request;
}

std::size_t bytes_needed(const Problem& p) {
  const auto mul = saturating_mul, add = saturating_add;
  const std::size_t m = p.m, n = p.n, k = p.k, s = p.scalar_bytes();
  const std::size_t mk = mul(m, k), kn = mul(k, n), mn = mul(m, n);
  std::size_t bytes = mul(s, add(add(mk, kn), mul(2, mn)));
  bytes = add(bytes, mul(8, add(mn, add(m, n))));
  if (p.precision == Precision::Float) bytes = add(bytes, mul(8, add(mk, kn)));
  return bytes;
}

std::string bytes_text(std::size_t bytes) {
  if (bytes == SIZE_MAX) return "more than 2^64 bytes";
  char text[64];
  std::snprintf(text, sizeof(text), "%zu bytes (%.2f GiB)", bytes,
                static_cast<double>(bytes) / (1 << 30));
  return text;
}

MemoryRoom host_memory_room(const system_info::HostMemory& host, int threads,
                            int openblas_buffers) {
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
  const std::size_t address_space_keeps =
      openblas_buffers > 0 ? kSmallAllocations + std::size_t(openblas_buffers) * kOpenBlasBuffer
                           : 0;
  tighten(host.address_space, address_space_keeps,
          address_space_keeps == 0
              ? ""
              : " (under ulimit -v or -d, less " + std::to_string(address_space_keeps >> 20) +
                    " MiB kept free for the " +
                    (openblas_buffers == 1 ? std::string("buffer")
                                           : std::to_string(openblas_buffers) + " buffers") +
                    " OpenBLAS maps on its first call and the run's small allocations before it)");
  return room;
}

std::map<std::pair<std::size_t, std::int64_t>, LaunchConfig> local_launches(
    const Problem& p, const std::string& backend) {
  const BackendOps& b = backend_ops(backend);
  Problem piece = p;
  const auto [rows, cols] = distributed::local_extents(p, distributed::rank(), distributed::size());
  piece.m = std::max<std::int64_t>(rows, 1);
  piece.n = std::max<std::int64_t>(cols, 1);
  std::map<std::pair<std::size_t, std::int64_t>, LaunchConfig> found;
  for (const auto& step : distributed::k_steps(p)) {
    piece.k = step.second;
    for (std::size_t r = 0; r < p.runs.size(); ++r) {
      if (found.count({r, piece.k})) continue;
      try {
        found[{r, piece.k}] = b.plan(piece, p.runs[r]);
      } catch (const kernels::LaunchError& e) {
        throw InputError(p.origin.where() + ": kernel '" + p.runs[r].kernel +
                         "' on this rank's piece (" + std::to_string(rows) + " x " +
                         std::to_string(cols) + ", K step " + std::to_string(piece.k) +
                         "): " + e.what());
      }
    }
  }
  return found;
}

std::size_t memory_available(const std::string& name) {
  return memory_room(name).bytes;
}

std::vector<Plan> plan(const std::vector<Problem>& problems, const std::string& name) {
  const BackendOps& b = backend_ops(name);
  std::vector<Plan> plans;
  for (const auto& p : problems) {
    distributed::check_spread(p, distributed::size(), distributed::nccl_possible(name));
    Plan plan;
    plan.problem = &p;
    plan.launches = launches(b, p);
    // The operands (over the ranks of an MPI run, this rank's pieces of them), the partial tiles
    // of the launch run that needs the most (a split K), and on a host backend its team scratch:
    // Kokkos gives every thread of the backend the scratch of a team, and aborts the process where
    // it cannot allocate it.
    const bool pieces = distributed::size() > 1 && p.distribution.spread == Spread::Summa;
    if (pieces) plan.local_launches = local_launches(p, name);
    const std::size_t operands =
        pieces ? distributed::piece_bytes(p, distributed::size()) : bytes_needed(p);
    plan.bytes_needed =
        saturating_add(operands, saturating_mul(plan.partial_elements(), p.scalar_bytes()));
    if (b.on_host) {
      plan.bytes_needed =
          saturating_add(plan.bytes_needed,
                         saturating_mul(host_scratch_bytes(plan), std::size_t(b.concurrency())));
    }
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

}  // namespace tilemm
