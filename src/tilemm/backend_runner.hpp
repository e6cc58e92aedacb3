// Each backend's functions for the registry (backends.hpp), compiled once per Kokkos execution
// space in backends/*.cpp, so that a single binary serves a backend comparison.
#pragma once

#include <memory>
#include <string>

#include "tilemm/backends.hpp"
#include "tilemm/kernels/registry.hpp"
#include "tilemm/plan.hpp"
#include "tilemm/workspace.hpp"
#ifdef TILEMM_HAVE_MPI
#include "tilemm/distributed/summa.hpp"
#endif

namespace tilemm {

template <class ExecSpace>
struct BackendRunner {
  /// Calls f(Scalar{}, Layout{}) with the problem's precision and layout as types.
  template <class F>
  static auto with_types(const Problem& p, F&& f) {
    const bool right = p.layout == Layout::Right;
    if (p.precision == Precision::Float) {
      return right ? f(float{}, Kokkos::LayoutRight{}) : f(float{}, Kokkos::LayoutLeft{});
    }
    return right ? f(double{}, Kokkos::LayoutRight{}) : f(double{}, Kokkos::LayoutLeft{});
  }

  /// The launch of a kernel run, its request given the caches of this CPU (on_this_cpu), from which
  /// the CPU schedule's default blocks come.
  static LaunchConfig plan(const Problem& p, const KernelRun& run) {
    return with_types(p, [&](auto scalar, auto layout) {
      return kernels::Registry<ExecSpace, decltype(scalar), decltype(layout)>::plan(
          run.kernel, on_this_cpu(run.launch), {p.m, p.n, p.k, p.trans_a, p.trans_b});
    });
  }

  static std::unique_ptr<Session> prepare(const Plan& plan) {
    return with_types(*plan.problem, [&](auto scalar, auto layout) -> std::unique_ptr<Session> {
      return std::make_unique<Workspace<ExecSpace, decltype(scalar), decltype(layout)>>(plan);
    });
  }

  static int concurrency() { return ExecSpace().concurrency(); }

#ifdef TILEMM_HAVE_MPI
  static std::unique_ptr<Session> prepare_distributed(const Plan& plan) {
    return with_types(*plan.problem, [&](auto scalar, auto layout) -> std::unique_ptr<Session> {
      using Summa = distributed::SummaWorkspace<ExecSpace, decltype(scalar), decltype(layout)>;
      return std::make_unique<Summa>(plan, MPI_COMM_WORLD);
    });
  }
#endif

  static BackendOps ops(const std::string& name) {
    BackendOps ops{name, &plan, &prepare, &concurrency, kernels::runs_on_cpu<ExecSpace>()};
#ifdef TILEMM_HAVE_MPI
    ops.prepare_distributed = &prepare_distributed;
#endif
    return ops;
  }
};

}  // namespace tilemm
