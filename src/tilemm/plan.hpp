// The plan: every problem checked against a backend before anything runs. Each kernel run gets its
// launch, and the problem's memory need is compared with the room the backend has under the
// job's limits, so that a problem that does not fit is refused before it allocates.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tilemm/kernels/launch_error.hpp"
#include "tilemm/problem.hpp"
#include "tilemm/system_info.hpp"

namespace tilemm {

/// A problem checked against a backend: the launch of each of its kernel runs, and its memory need.
struct Plan {
  const Problem* problem = nullptr;
  std::vector<LaunchConfig> launches;  // one per problem->runs
  /// Under SUMMA, this rank's local products, which distributed/summa.hpp runs: the launch of each
  /// kernel run on the rank's piece of C, by the run's index and the length of a K step (a last,
  /// shorter step may differ). Empty for a problem on one process or replicated.
  std::map<std::pair<std::size_t, std::int64_t>, LaunchConfig> local_launches;
  std::size_t bytes_needed = 0;  // on the backend's memory space, team scratch included

  /// The launches that run: this rank's local products under SUMMA, else one per kernel run.
  std::vector<LaunchConfig> launches_run() const {
    if (local_launches.empty()) return launches;
    std::vector<LaunchConfig> local;
    for (const auto& entry : local_launches) local.push_back(entry.second);
    return local;
  }
  /// Scalars of a split K's partial tiles: the most that one of the launches run needs.
  std::size_t partial_elements() const {
    std::size_t most = 0;
    for (const LaunchConfig& launch : launches_run()) {
      most = std::max(most, launch.partial_elements);
    }
    return most;
  }
};

/// Plans every problem on `backend`. Throws InputError when a launch cannot fit the backend (key
/// 'tile' or 'team_size') or, over the ranks of an MPI run, a problem's grid or comm cannot run
/// (distributed::check_spread), RuntimeFailure when a problem needs more memory than is available.
/// Needs Kokkos initialized.
std::vector<Plan> plan(const std::vector<Problem>& problems, const std::string& backend);

/// A SUMMA problem's local products on this rank of the MPI run, as plan() puts them in
/// Plan::local_launches: the launch of each kernel run on `backend` for each length of K step, on
/// the rank's piece of C (at least 1 x 1: a rank may hold none of it). A launch that cannot fit is
/// an InputError that names the piece. Needs Kokkos initialized.
std::map<std::pair<std::size_t, std::int64_t>, LaunchConfig> local_launches(
    const Problem& p, const std::string& backend);

/// The spec key that sets the part of a launch a backend refused ("tile", "moduli", ...).
const char* spec_key(kernels::LaunchLimit limit);

/// `request` with the caches of the CPU this process runs on (system_info::cpu_caches, read once),
/// from which the CPU schedule's default blocks come.
LaunchRequest on_this_cpu(LaunchRequest request);

/// The bytes a problem's workspace allocates besides a split K's partials (workspace.hpp): A, B,
/// C0 and C in the problem's precision, the reference C and its norms in double, and for a float
/// problem the double copies of A and B its reference is computed from. A .npy file is mapped (or,
/// a pipe, held) from the spec's reading on, so the limits count it as in use already; it is
/// converted into its matrix in pieces. Saturates at SIZE_MAX.
std::size_t bytes_needed(const Problem& p);

/// "2684485632 bytes (2.50 GiB)"; a count that saturated is "more than 2^64 bytes".
std::string bytes_text(std::size_t bytes);

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
/// `ulimit -v` or `ulimit -d`, room for the `openblas_buffers` buffers OpenBLAS maps on its first
/// call (vendor_library::openblas_buffers_on_first_call).
MemoryRoom host_memory_room(const system_info::HostMemory& host, int threads, int openblas_buffers);

}  // namespace tilemm
