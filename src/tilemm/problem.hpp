// One GEMM problem after its spec has been read, checked and expanded: everything a run needs,
// nothing about YAML. A sweep in the spec becomes several Problems that share a name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilemm/types.hpp"

namespace tilemm {
namespace npy {
struct File;
}

/// Where a problem came from, so that every message about it can name the file and the problem.
struct Origin {
  std::string file;  // the spec file as given on the command line
  std::string name;  // the problem's `name`
  int index = 0;     // its position in `problems:` (0-based)
  int line = 0;      // its line in the file (1-based; 0 if unknown)

  /// "inputs/x.yaml: problem 'square' (#2, line 14)"
  std::string where() const;
};

/// A matrix read from a .npy file instead of generated.
struct NpySource {
  std::string path;  // resolved against the spec file's folder
  std::int64_t rows = 0, cols = 0;
  bool fortran_order = false;
  std::shared_ptr<const npy::File> file;  // the file's bytes, read once when the spec was read
};

/// One kernel to run on a problem, with its launch request (tile and team size, if asked for).
struct KernelRun {
  std::string kernel;
  LaunchRequest launch;
};

/// How a problem is spread over the ranks of an MPI run (distributed/summa.hpp); a run of one
/// process has no use for it. Zero means the default.
struct Distribution {
  int grid_rows = 0, grid_cols = 0;  // the process grid; 0: the most square grid of the ranks
  std::int64_t block = 0;            // the 2D block-cyclic distribution's block (MB = NB)
  std::int64_t panel = 0;            // SUMMA's K panel; 0: the block
  std::string comm = "auto";         // the broadcasts' library: "mpi", "nccl" or "auto"
  Spread spread = Spread::Summa;
};

struct Problem {
  Origin origin;
  std::int64_t m = 0, n = 0, k = 0;
  Precision precision = Precision::Double;
  Layout layout = Layout::Right;
  Trans trans_a = Trans::N, trans_b = Trans::N;
  double alpha = 1.0, beta = 0.0;
  std::vector<KernelRun> runs;
  int repeats = 10;
  int warmup = 2;
  /// Untimed runs go on until `warmup` have run and `warmup_s` seconds have passed: a GPU held at
  /// its power cap settles its clock over time, and after a fixed count of short runs a result
  /// depends on what ran before it (perf/README.md, "The power cap").
  double warmup_s = 0;
  std::uint64_t seed = 42;
  std::optional<NpySource> a, b, c;  // data from files; random data (from `seed`) otherwise
  std::string c_out;                 // path template for the result C of each kernel ("" = none)
  Distribution distribution;         // over the ranks of an MPI run

  /// Bytes of one element in the problem's precision.
  std::size_t scalar_bytes() const { return precision == Precision::Float ? 4 : 8; }
};

}  // namespace tilemm
