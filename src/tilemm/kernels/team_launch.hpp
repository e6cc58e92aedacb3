// Launch shapes for the team-scratch kernels, chosen per backend through Kokkos' own queries, so
// that the kernel sources branch on the backend only where the hardware differs in kind (a CPU's
// vector registers, a GPU's level-0 scratch in register_tiled/kernel.hpp); otherwise only these
// parameters differ.
#pragma once

#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/launch_error.hpp"
#include "tilemm/types.hpp"

namespace tilemm::kernels {

/// A backend whose threads can read host memory runs on CPU cores (Serial, OpenMP, Threads); the
/// others (CUDA, HIP, SYCL) run on an accelerator with wide teams.
template <class ExecSpace>
constexpr bool runs_on_cpu() {
  return Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
}

/// A GPU team's level-0 scratch is its multiprocessor's shared memory, but Kokkos hands the
/// address over through memory, which hides that from the compiler: without this promise every
/// access to it becomes a generic load or store, slower and with 64-bit address arithmetic.
KOKKOS_INLINE_FUNCTION void* in_level0_scratch(void* p) {
#if defined(__CUDA_ARCH__)
  __builtin_assume(__isShared(p));
#endif
  return p;
}

/// A list of types: a table of kernels.
template <class... T>
struct TypeList {};
/// Whether f(T{}) returns true for one of the list's types, tried in order until one does.
template <class... T, class F>
bool any_of_types(TypeList<T...>, F&& f) {
  return (f(T{}) || ...);
}

/// The largest power of two that is <= n (and >= 1).
inline int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/// Checks a launch against the backend's limits for this kernel: scratch per team at its level
/// (`scratch_size_max`) and threads per team (`team_size_max`, which accounts for the kernel's
/// registers and its scratch). Throws LaunchError saying which limit is exceeded.
template <class Kernel>
void check_team_launch(const Kernel& kernel, const LaunchConfig& cfg) {
  using Policy = typename Kernel::Policy;
  const int level = cfg.scratch_level;
  const std::size_t scratch_max = static_cast<std::size_t>(Policy::scratch_size_max(level));
  if (cfg.scratch_bytes > scratch_max) {
    throw LaunchError(LaunchLimit::Tile, "tile " + cfg.tile.to_string() + " needs " +
                                             std::to_string(cfg.scratch_bytes) +
                                             " bytes of level-" + std::to_string(level) +
                                             " team scratch; this backend allows " +
                                             std::to_string(scratch_max));
  }
  if (cfg.vector_length > Policy::vector_length_max()) {
    throw LaunchError(LaunchLimit::Tile, "vector length " + std::to_string(cfg.vector_length) +
                                             " exceeds this backend's maximum " +
                                             std::to_string(Policy::vector_length_max()));
  }
  Policy probe(1, 1, cfg.vector_length);
  probe.set_scratch_size(level, Kokkos::PerTeam(cfg.scratch_bytes));
  const int team_max = probe.team_size_max(kernel, Kokkos::ParallelForTag());
  if (cfg.team_size < 1 || cfg.team_size > team_max) {
    throw LaunchError(LaunchLimit::TeamSize,
                      "team size " + std::to_string(cfg.team_size) + " (x vector length " +
                          std::to_string(cfg.vector_length) + ") with tile " +
                          cfg.tile.to_string() + " exceeds this backend's maximum of " +
                          std::to_string(team_max) + " for this kernel");
  }
}

}  // namespace tilemm::kernels
