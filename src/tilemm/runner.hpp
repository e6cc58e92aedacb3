// The timed runs: each planned problem's workspace prepared, then each of its kernels run, warmed
// up, timed and validated, and its result handed on. The whole path from problems to results, so
// this header brings the stages before it too: the backends (backends.hpp), the plan (plan.hpp),
// the workspace (session.hpp) and the device (device_info.hpp). Kokkos-free, so that the CLI
// needs no Kokkos types.
#pragma once

#include <csignal>
#include <functional>
#include <memory>
#include <string>

#include "tilemm/backends.hpp"
#include "tilemm/device_info.hpp"
#include "tilemm/plan.hpp"
#include "tilemm/result.hpp"
#include "tilemm/session.hpp"

namespace tilemm {

/// Allocates and fills `plan`'s problem on `backend` and computes its reference. Throws
/// RuntimeFailure when an allocation fails or a matrix file was written in place since it was read.
std::unique_ptr<Session> prepare(const Plan& plan, const std::string& backend);

/// Set (from a signal handler) to stop a run at the next repeat.
using StopFlag = volatile std::sig_atomic_t;

/// What a run says as it goes, for a display of its progress (the CLI's). Each call comes from the
/// thread that runs the kernels, between two kernel runs.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  /// Kernel run `run` (an index into the problem's runs) starts with its first, validated run.
  virtual void kernel_started(std::size_t run) = 0;
  /// A warm-up run ended: `done` of them so far.
  virtual void warmed_up(int done) = 0;
  /// Timed run `done` of `total` ended, after `seconds`.
  virtual void timed(int done, int total, double seconds) = 0;
};

/// Runs one planned problem; `on_result` gets each kernel's result as soon as it is validated and
/// timed, and `observer`, where given, each step. Returns false when `stop` was raised before the
/// problem finished.
bool run(const Plan& plan, const std::string& backend,
         const std::function<void(const Result&)>& on_result, const StopFlag* stop,
         RunObserver* observer = nullptr);

}  // namespace tilemm
