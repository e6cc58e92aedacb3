// The backend registry: the execution spaces of this Kokkos build, each with the few functions the
// later stages need of it (backend_runner.hpp compiles them once per space). Kokkos-free, so that
// the CLI needs no Kokkos types.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tilemm/problem.hpp"

namespace tilemm {

struct Plan;
class Session;

/// What the plan, the workspace and the timed runs need from one backend, as plain functions.
struct BackendOps {
  std::string name;  // "serial", "openmp", "cuda"
  /// The launch of one kernel run of a problem; throws LaunchError when it cannot fit.
  LaunchConfig (*plan)(const Problem&, const KernelRun&);
  /// The problem's matrices allocated and filled, with its reference (workspace.hpp).
  std::unique_ptr<Session> (*prepare)(const Plan&);
  int (*concurrency)();
  bool on_host = true;  // whether its memory is the host's
  /// The problem as one product over the ranks of an MPI run (distributed/summa.hpp); null in a
  /// build without MPI.
  std::unique_ptr<Session> (*prepare_distributed)(const Plan&) = nullptr;
};

/// The execution spaces of this Kokkos build, by tilemm's names: "serial", "openmp", "cuda".
std::vector<std::string> available_backends();
/// Kokkos' default execution space, by tilemm's name.
std::string default_backend();
/// Throws InputError naming the available backends when `name` is not one of them.
void check_backend(const std::string& name);
/// The backend `name`; throws as check_backend does when there is none.
const BackendOps& backend_ops(const std::string& name);

}  // namespace tilemm
