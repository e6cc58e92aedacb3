// The CPU schedule's block sizes, from the caches of the CPU and the micro-kernel's registers, and
// the team scratch a tile takes. Plain host functions, free of Kokkos.
//
// The schedule is BLIS's five loops around an MR x NR micro-kernel (team_gemm.hpp), whose operands
// are packed panels (packing.hpp):
//
//   for each tile of C, bm x bn (a team's):             A~ and B~ in L3, shared by the team
//     for p0 < K, step kc:
//       pack A~ = A[tile rows, p0 : p0+kc]             the team's threads pack shares of their
//       pack B~ = B[p0 : p0+kc, tile cols]             micro-panels
//       each thread, taking the team's units of work in turn until none is left:
//         a unit: a block of B~ (kc x nb: in L2) and kUnitPanels micro-panels of A~
//           for each micro-panel of the unit's A~ (MR x kc):   in L1 while B~'s stream past it
//             for each micro-panel of the block (kc x NR):
//               C[MR x NR] += A~ panel * B~ panel      the micro-kernel (micro_kernel.hpp)
//
// The units go block by block, so the threads share a block of B~ while it is in their L2s, and
// a thread takes the next when it is done with one: one that its core runs slower (another
// process, a virtual machine's neighbours) takes fewer, and the team's threads finish a K block
// together.
//
// The micro-kernel broadcasts A and loads B as vectors, so B plays the part BLIS's loops give to A:
// B's block is the one kept in L2, A's micro-panel the one kept in L1, and the innermost loop walks
// B's micro-panels, so that consecutive blocks of C lie side by side along C's rows and C streams
// through the caches a row at a time.
//
// kc follows the analytical model of Low, Igual, Smith and Quintana-Orti ("Analytical modeling is
// enough for high-performance BLIS", ACM TOMS 43(2), 2016), in ways of L1: B's micro-panel, which
// streams, gets the share of L1's ways (one kept for C) that its width NR has of MR + NR, and kc is
// as deep as that share holds; A's resident micro-panel takes the rest. nb keeps B~'s block in a
// quarter of L2, leaving the rest to what streams through it (A's micro-panels, C's rows, the
// prefetchers' lines): on the Xeon of perf/README.md a quarter ran faster than a half. nc keeps B~
// in L3's ways less two, for C and for A's micro-panels.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tilemm/types.hpp"

namespace tilemm::kernels::cpu {

/// What blocking assumes of a cache the system does not report: a common x86 core's.
inline constexpr CpuCaches kAssumedCaches{32 * 1024, 1024 * 1024, 8 * 1024 * 1024, 8, 16, 16, 64};

/// The caches, each figure the system did not report (zero) taken from kAssumedCaches.
inline CpuCaches known_or_assumed(CpuCaches c) {
  const CpuCaches& a = kAssumedCaches;
  if (c.l1d <= 0) c.l1d = a.l1d;
  if (c.l2 <= 0) c.l2 = a.l2;
  if (c.l3 <= 0) c.l3 = std::max(a.l3, c.l2);
  if (c.l1d_ways <= 0) c.l1d_ways = a.l1d_ways;
  if (c.l2_ways <= 0) c.l2_ways = a.l2_ways;
  if (c.l3_ways <= 0) c.l3_ways = a.l3_ways;
  if (c.line <= 0) c.line = a.line;
  return c;
}

/// The block sizes of the schedule for one precision and micro-kernel.
struct Blocks {
  int mr = 0, nr = 0;  // the micro-kernel: MR rows of NR scalars
  int kc = 0;          // depth of a packed panel
  int nb = 0;          // columns of B~ a thread's loops keep in L2
  int nc = 0;          // columns of B~ a team packs, at most
};

inline std::int64_t round_down(std::int64_t x, std::int64_t unit) {
  return std::max<std::int64_t>(unit, x / unit * unit);
}
inline std::int64_t round_up(std::int64_t x, std::int64_t unit) {
  return (x + unit - 1) / unit * unit;
}

/// The model's blocks for an mr x nr micro-kernel on scalars of `scalar_bytes`: kc a multiple of 8
/// (at most 1024), nb and nc of nr (nc at most kMaxColumns); each at least one unit.
inline constexpr std::int64_t kMaxColumns = 1 << 16;
inline Blocks blocks_for(const CpuCaches& reported, int scalar_bytes, int mr, int nr) {
  const CpuCaches c = known_or_assumed(reported);
  const std::int64_t s = scalar_bytes;
  Blocks b{mr, nr, 0, 0, 0};
  const std::int64_t way1 = c.l1d / c.l1d_ways;
  const std::int64_t b_ways = std::max<std::int64_t>(1, (c.l1d_ways - 1) * nr / (mr + nr));
  b.kc = int(std::min<std::int64_t>(1024, round_down(b_ways * way1 / (nr * s), 8)));
  b.nb = int(round_down(c.l2 / 4 / (b.kc * s), nr));
  const std::int64_t way3 = c.l3 / c.l3_ways;
  const std::int64_t b_block_ways = std::max<std::int64_t>(1, c.l3_ways - 2);
  b.nc = int(round_down(std::min(kMaxColumns, b_block_ways * way3 / (b.kc * s)), nr));
  return b;
}

/// A tile of the schedule in its own orientation, where C's lines are rows (C^T's in LayoutLeft):
/// bm rows x bn columns, kc deep.
struct TileShape {
  int bm = 0, bn = 0, kc = 0;
};

/// Micro-tiles of `unit` that cover `extent`.
inline int micro_count(std::int64_t extent, int unit) {
  return int((extent + unit - 1) / unit);
}

/// Bytes of team scratch a tile takes: B~ for the tile's columns, A~ for its rows, and the two
/// counters of the team's units of work (team_gemm.hpp), each rounded up to kAlign bytes, and
/// kAlign for aligning the base.
inline constexpr std::size_t kAlign = 64;
inline std::size_t aligned(std::size_t bytes) {
  return (bytes + kAlign - 1) / kAlign * kAlign;
}
inline std::size_t b_panel_bytes(const TileShape& t, const Blocks& b, int scalar_bytes) {
  return aligned(std::size_t(t.kc) * round_up(t.bn, b.nr) * scalar_bytes);
}
inline std::size_t a_panel_bytes(const TileShape& t, const Blocks& b, int scalar_bytes) {
  return aligned(std::size_t(t.kc) * round_up(t.bm, b.mr) * scalar_bytes);
}
inline std::size_t scratch_bytes(const TileShape& t, const Blocks& b, int scalar_bytes) {
  return b_panel_bytes(t, b, scalar_bytes) + a_panel_bytes(t, b, scalar_bytes) + 2 * kAlign;
}

/// kc for a K of `depth`: at most b.kc, the K blocks as even as whole multiples of 8 make them
/// (K = 300 with kc 256: two blocks of 152 rather than 256 and 44).
inline int even_depth(std::int64_t depth, int most) {
  const std::int64_t blocks = (depth + most - 1) / most;
  return int(std::min<std::int64_t>(most, round_up((depth + blocks - 1) / blocks, 8)));
}

/// The default tile for an m x n x k product (in the schedule's orientation) for `teams` teams
/// that run at once, whose scratch may take `scratch_max` bytes: all of K's blocks kc deep
/// (even_depth), columns nc at most (as even as whole micro-panels make them), and all of C's rows,
/// or bands of them where the teams need more tiles. Until the scratch fits, the larger of A~ and
/// B~ is halved (bands of at most half the rows, columns), then kc.
inline TileShape default_tile(std::int64_t m, std::int64_t n, std::int64_t k, const Blocks& b,
                              std::int64_t teams, std::size_t scratch_max, int scalar_bytes) {
  m = std::max<std::int64_t>(m, 1);
  n = std::max<std::int64_t>(n, 1);
  // `extent` in `blocks` blocks as even as whole units make them.
  const auto even_split = [](std::int64_t extent, std::int64_t blocks, int unit) {
    return int(round_up((extent + blocks - 1) / blocks, unit));
  };
  TileShape t;
  t.kc = even_depth(std::max<std::int64_t>(k, 1), b.kc);
  std::int64_t most_n = b.nc, most_m = round_up(m, b.mr);
  for (;;) {
    t.bn = even_split(n, (n + most_n - 1) / most_n, b.nr);
    const std::int64_t tiles_n = (n + t.bn - 1) / t.bn;
    // Bands of rows: at least a team's share of the teams, and at most most_m rows each.
    const std::int64_t bands =
        std::max<std::int64_t>({1, (teams + tiles_n - 1) / tiles_n, (m + most_m - 1) / most_m});
    t.bm = even_split(m, bands, b.mr);
    if (scratch_bytes(t, b, scalar_bytes) <= scratch_max) return t;
    if (a_panel_bytes(t, b, scalar_bytes) >= b_panel_bytes(t, b, scalar_bytes) && most_m > b.mr) {
      most_m = round_down(most_m / 2, b.mr);
    } else if (most_n > b.nr) {
      most_n = round_down(most_n / 2, b.nr);
    } else if (t.kc > 8) {
      t.kc = int(round_down(t.kc / 2, 8));
    } else {
      return t;  // the plan refuses it, naming the scratch it needs
    }
  }
}

}  // namespace tilemm::kernels::cpu
