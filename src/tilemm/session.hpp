// The workspace as the timed runs see it: a planned problem's matrices allocated and filled on a
// backend, with its reference (workspace.hpp implements it). Kokkos-free, so that the CLI and
// tilemm-bench need no Kokkos types.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "tilemm/result.hpp"

namespace tilemm {

/// A planned problem on a backend, ready for its kernels to run on it again and again (the CLI's
/// warm-up and timed runs, tilemm-bench's iterations).
class Session {
 public:
  virtual ~Session() = default;
  /// Resets C to the initial C, runs the problem's kernel run `run` (an index into
  /// plan.problem->runs) once and fences; returns the seconds the kernel took.
  virtual double run(std::size_t run) = 0;
  /// The largest scaled error of C after the last run (validate.hpp); +Inf for NaN or Inf in C.
  virtual double error() const = 0;
  /// Freivalds' error of C after the last run (validate.hpp), which trusts no library; +Inf for
  /// NaN or Inf in C.
  virtual double freivalds_error() const = 0;
  /// Whether the reference that error() compares with passes Freivalds' check itself (a vendor
  /// BLAS that is wrong gives a wrong reference); where it does not, error() proves nothing.
  virtual bool reference_valid() const = 0;
  /// The launch of kernel run `run` as it runs on this problem's data, where the data decides part
  /// of it (ozaki's count of moduli); nothing where the plan's launch is the whole story.
  virtual std::optional<LaunchConfig> launch(std::size_t /*run*/) const { return std::nullopt; }
  /// Writes C after the last run to `path` as .npy, in the problem's layout.
  virtual void write_c(const std::string& path) const = 0;
  /// For a product over the ranks of an MPI run, how kernel run `run` ran over its last `timed`
  /// runs; nothing for a run of one process.
  virtual std::optional<DistributedFigures> distributed(std::size_t /*run*/,
                                                        std::size_t /*timed*/) const {
    return std::nullopt;
  }
};

}  // namespace tilemm
