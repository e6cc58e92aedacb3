// One kernel's result on one problem: what the reports print and write, free of Kokkos.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilemm/problem.hpp"

namespace tilemm {

struct TimeStats {
  double min = 0, median = 0, max = 0, mean = 0;  // seconds

  static TimeStats of(std::vector<double> samples);
};

struct Result {
  const Problem* problem = nullptr;  // the problem it answers (owned by the caller of run)
  std::string kernel;
  std::string backend;
  LaunchConfig launch;  // zeros for kernels that leave the launch to Kokkos
  TimeStats time;
  int warmup_runs = 0;     // untimed runs done before the timed ones
  double gflops = 0;       // 2 M N K / median time
  double gflops_best = 0;  // 2 M N K / min time
  double error = 0;        // max scaled error (validate.hpp), worst of the first and last run
  double tolerance = 0;
  bool passed = false;
  std::string c_out;  // the file C was written to, if any

  /// "16x16x16" for tiled kernels, "" for kernels without a tile.
  std::string tile_text() const { return launch.tile.bm ? launch.tile.to_string() : ""; }
};

}  // namespace tilemm
