// One kernel's result on one problem: what the reports print and write, free of Kokkos.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilemm/problem.hpp"

namespace tilemm {

/// The median of `values` (the mean of the middle two for an even count); 0 when there are none.
double median_of(std::vector<double> values);

/// The coefficient of variation (standard deviation / mean) above which a result's timing is noisy.
inline constexpr double kNoisyVariation = 0.05;
/// The fewest timed runs whose spread can call a timing noisy.
inline constexpr int kNoisyMinRuns = 3;

/// The verdict of a result's two checks (validate.hpp): Freivalds' error within the tolerance, and
/// the error against the reference too, unless that reference fails Freivalds' check itself (a
/// wrong vendor BLAS gives a wrong reference, which then proves nothing). NaN fails.
inline bool passes(double error, double freivalds_error, bool reference_valid, double tolerance) {
  return freivalds_error <= tolerance && (error <= tolerance || !reference_valid);
}

struct TimeStats {
  double min = 0, median = 0, max = 0, mean = 0;  // seconds
  double stddev = 0;          // sample standard deviation (n - 1); 0 for fewer than two runs
  std::vector<double> times;  // every timed run, in run order

  static TimeStats of(std::vector<double> samples);

  /// Whether the spread says the timing is noisy (a loaded node, a clock that moved): at least
  /// kNoisyMinRuns timed runs, whose standard deviation is above kNoisyVariation of their mean.
  bool noisy() const;
};

/// What the GPU did during a result's timed runs, sampled through NVML (gpu_monitor.hpp). Under a
/// power cap the same kernel runs at another clock held than in a short run, so a GPU figure is
/// read with its clock.
/// A part that NVML never gave is negative.
struct GpuTelemetry {
  int samples = 0;
  double sm_clock_mhz = -1;      // median of the samples
  double sm_clock_mhz_min = -1;  // lowest
  double power_w = -1;           // median GPU power
  double power_capped = -1;  // fraction of samples in which the software power cap held the clock
  double slowdown = -1;      // fraction in which a thermal or hardware slowdown did
};

/// How a distributed product ran (distributed/summa.hpp): its time is the slowest rank's.
struct DistributedFigures {
  int ranks = 1;
  std::string grid;        // "2x2": process rows x columns
  std::int64_t block = 0;  // the block-cyclic distribution's block
  std::int64_t panel = 0;  // SUMMA's K panel
  std::string comm;        // the broadcasts' library, and how GPU data reached it
  Spread distribution = Spread::Summa;
  int slowest_rank = -1;  // replicated: the rank slowest in most timed runs
  /// The median over the timed runs of the slowest rank's time waiting for broadcasts, as a share
  /// of the product's time: the communication the local products did not hide.
  double comm_exposed = 0;    // negative where not measured (NCCL, replicated)
  LaunchConfig local_launch;  // of the first K step's local product
};

struct Result {
  const Problem* problem = nullptr;  // the problem it answers (owned by the caller of run)
  std::string kernel;
  std::string backend;
  LaunchConfig launch;  // zeros for kernels that leave the launch to Kokkos
  TimeStats time;
  int warmup_runs = 0;          // untimed runs done before the timed ones
  double gflops = 0;            // 2 M N K / median time
  double gflops_best = 0;       // 2 M N K / min time
  double error = 0;             // max scaled error (validate.hpp), worst of the first and last run
  double freivalds_error = 0;   // Freivalds' error (validate.hpp), worst of the same two runs
  bool reference_valid = true;  // whether the reference of `error` passed Freivalds' check
  double tolerance = 0;
  bool passed = false;
  std::string c_out;                // the file C was written to, if any
  std::optional<GpuTelemetry> gpu;  // on a GPU whose NVML tilemm could open
  std::string utc_time;  // when the result was done (UTC, ISO 8601); "" in results made by hand
  std::optional<DistributedFigures> distributed;  // a product over the ranks of an MPI run

  /// "16x16x16" for tiled kernels, "" for kernels without a tile.
  std::string tile_text() const { return launch.tile.bm ? launch.tile.to_string() : ""; }
};

}  // namespace tilemm
