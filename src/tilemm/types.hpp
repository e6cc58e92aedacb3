// The vocabulary of a GEMM problem, free of Kokkos so that I/O code can use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilemm {

enum class Precision { Float, Double };
enum class Layout {
  Right,
  Left
};  // Right: row-major (C, numpy); Left: column-major (BLAS, Fortran)
enum class Trans { N, T };
/// How a problem is spread over the ranks of an MPI run: one product over all ranks (SUMMA), or
/// the whole problem on every rank at once. The spec's and the results' `distribution`.
enum class Spread { Summa, Replicated };

std::string to_string(Precision p);
std::string to_string(Layout l);
std::string to_string(Trans t);
std::string to_string(Spread s);

/// `text` with its ASCII letters in lower case ("OpenMP" -> "openmp").
std::string lower_case(std::string text);

/// Tile shape of the team-scratch kernels: each team computes a bm x bn block of C and walks K in
/// steps of bk; the register-tiled kernel also gives each thread a tm x tn block of that tile.
struct Tiling {
  int bm = 0, bn = 0, bk = 0;
  int tm = 1, tn = 1;
  int stages = 0;  // K blocks in flight by asynchronous copies (tensor-tiled); 0: the kernel's own

  /// "16" -> 16x16x16; "64x32x8" -> bm=64, bn=32, bk=8; "128x128x8/8x8" adds tm=8, tn=8;
  /// "128x64x8/64x32/s3" adds stages=3. Returns std::nullopt when the text is not of that form.
  static std::optional<Tiling> parse(const std::string& text);
  std::string to_string() const;
  bool has_thread_tile() const { return tm > 1 || tn > 1; }
  bool operator==(const Tiling& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && tm == o.tm && tn == o.tn && stages == o.stages;
  }
};

/// The data caches of a CPU core, as the system reports them (system_info::cpu_caches), from which
/// the CPU schedule derives its block sizes (kernels/cpu/blocking.hpp). Zero: not reported.
struct CpuCaches {
  std::int64_t l1d = 0, l2 = 0, l3 = 0;  // bytes
  int l1d_ways = 0, l2_ways = 0, l3_ways = 0;
  int line = 0;  // bytes
};

/// How a kernel is launched: the tile and the team shape. Zero means "choose for the backend".
struct LaunchRequest {
  std::optional<Tiling> tile;
  int team_size = 0;
  int split_k = 0;      // ranges of K summed apart (register-tiled)
  int split_tiles = 0;  // tiles of C, the last in the tile order, whose K is split (register-tiled)
  int moduli = 0;       // ozaki's count of moduli; 0: what double accuracy needs for the data
  /// The caches of the CPU a CPU backend runs on, read once at start-up by the plan; the CPU
  /// schedule's default blocks come from them.
  CpuCaches caches;
};

/// The extents of a product, op(A) m x k times op(B) k x n: defaults may depend on them (a tile
/// too large for the matrix would leave most of the machine idle).
struct Extents {
  std::int64_t m = 0, n = 0, k = 0;
  /// The ops, which decide along which of op(X)'s extents X runs in memory (tensor-tiled's default
  /// depends on it).
  Trans trans_a = Trans::N, trans_b = Trans::N;
};

/// The resolved launch of one kernel on one backend, reported with every result.
struct LaunchConfig {
  Tiling tile;
  int team_size = 0;
  int vector_length = 0;
  std::size_t scratch_bytes = 0;  // team scratch per team
  int scratch_level = 0;          // 0: the fast, small level (GPU shared memory); 1: the large one
  /// K cut into split_k ranges of whole K blocks, each range's products summed by teams of its
  /// own into partial tiles, then the partials added in order: teams for the GPU when C has too
  /// few tiles to fill it, or its last wave of teams too few, and K is long.
  int split_k = 1;
  /// The tiles of C, the last in the kernel's tile order, whose K is split (all of them, or those
  /// of a last wave of teams that would leave processors idle); the others run whole K in a launch
  /// before them. 0 when K is not split.
  std::int64_t split_tiles = 0;
  /// Scalars of backend memory the launch needs besides the operands: a split K's partials
  /// (split_k > 1), ozaki's residues and products.
  std::size_t partial_elements = 0;
  std::string instruction;  // the matrix instruction of the innermost product, if any
  int moduli = 0;           // ozaki's count of moduli; 0: chosen from the data as it runs
  /// The CPU schedule (kernels/cpu/blocking.hpp): the columns of a team's packed panel of B that a
  /// thread's loops keep in L2 (nb); 0 for the other kernels.
  int l2_columns = 0;
};

/// a * b and a + b, or SIZE_MAX where they would wrap: byte counts of extents within int range
/// can pass 2^64, and a wrapped count would let a plan pass a problem no machine holds.
inline std::size_t saturating_mul(std::size_t a, std::size_t b) {
  return (a != 0 && b > SIZE_MAX / a) ? SIZE_MAX : a * b;
}
inline std::size_t saturating_add(std::size_t a, std::size_t b) {
  return b > SIZE_MAX - a ? SIZE_MAX : a + b;
}

inline int ceil_div(std::int64_t a, std::int64_t b) {
  return static_cast<int>((a + b - 1) / b);
}

/// The tiles of t that cover an m x n C (whole tiles, the last ones over its edges).
inline std::int64_t tiles_of(const Tiling& t, std::int64_t m, std::int64_t n) {
  return std::int64_t(ceil_div(m, t.bm)) * ceil_div(n, t.bn);
}

}  // namespace tilemm
