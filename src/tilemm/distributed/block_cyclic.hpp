// The 2D block-cyclic distribution, with ScaLAPACK's layout: a matrix is cut into MB x NB blocks
// (here MB = NB), and block (I, J) lives on process (I mod Pr, J mod Pc) of a Pr x Pc grid, which
// keeps its blocks in order, packed, as one local matrix; and the memory a rank's pieces of a
// problem take. MPI-free and Kokkos-free, for the plan.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilemm/errors.hpp"
#include "tilemm/problem.hpp"

namespace tilemm::distributed {

/// One dimension of a block-cyclic distribution: `global` indices in blocks of `block`, dealt
/// round-robin to `procs` processes, as seen from process `me`.
struct BlockCyclic {
  std::int64_t global = 0;
  std::int64_t block = 1;
  int procs = 1, me = 0;

  /// The indices process `me` holds (ScaLAPACK's NUMROC).
  std::int64_t local() const {
    const std::int64_t blocks = global / block;
    std::int64_t count = blocks / procs * block;
    const std::int64_t extra = blocks % procs;
    if (me < extra) {
      count += block;
    } else if (me == extra) {
      count += global % block;
    }
    return count;
  }
  /// The global index of local index `l`.
  std::int64_t to_global(std::int64_t l) const {
    return (l / block * procs + me) * block + l % block;
  }
  /// The process that holds global index `g`, and its local index there.
  int owner(std::int64_t g) const { return static_cast<int>(g / block % procs); }
  std::int64_t to_local(std::int64_t g) const { return g / block / procs * block + g % block; }
};

/// The most square grid of `ranks` processes, Pr <= Pc (ScaLAPACK's usual choice).
inline std::pair<int, int> squarest_grid(int ranks) {
  int rows = 1;
  for (int r = 1; r * r <= ranks; ++r) {
    if (ranks % r == 0) rows = r;
  }
  return {rows, ranks / rows};
}

/// The block of the distribution when the spec sets none.
inline constexpr std::int64_t kDefaultBlock = 256;

/// The grid a problem asks for, else the most square grid of `ranks`.
inline std::pair<int, int> grid_of(const Problem& p, int ranks) {
  const Distribution& d = p.distribution;
  return d.grid_rows > 0 ? std::pair{d.grid_rows, d.grid_cols} : squarest_grid(ranks);
}

/// The block a problem asks for (else kDefaultBlock), and the panel SUMMA's K steps take: the one
/// it asks for (else the block), at most the block (a step never crosses a block edge) and k. The
/// panel buffers are sized by it, so that a block or panel far past the problem (the spec allows
/// up to 2^31 - 1) asks for no more memory than the problem holds.
inline std::pair<std::int64_t, std::int64_t> block_and_panel(const Problem& p) {
  const Distribution& d = p.distribution;
  const std::int64_t block = d.block > 0 ? d.block : kDefaultBlock;
  return {block, std::min({d.panel > 0 ? d.panel : block, block, p.k})};
}

/// SUMMA's K steps for a problem, (first index, length) each: at most the panel long, and never
/// across a block edge, so that a step's panels lie in one block column of op(A) and one block row
/// of op(B).
inline std::vector<std::pair<std::int64_t, std::int64_t>> k_steps(const Problem& p) {
  const auto [block, panel] = block_and_panel(p);
  std::vector<std::pair<std::int64_t, std::int64_t>> steps;
  for (std::int64_t k0 = 0; k0 < p.k;) {
    const std::int64_t end = std::min({k0 + panel, (k0 / block + 1) * block, p.k});
    steps.push_back({k0, end - k0});
    k0 = end;
  }
  return steps;
}

/// The rows and columns of C that rank `rank` of `ranks` holds: its place in the process grid is
/// row-major, as ProcessGrid's (grid.hpp).
inline std::pair<std::int64_t, std::int64_t> local_extents(const Problem& p, int rank, int ranks) {
  const auto [rows, cols] = grid_of(p, ranks);
  const std::int64_t block = block_and_panel(p).first;
  return {BlockCyclic{p.m, block, rows, rank / cols}.local(),
          BlockCyclic{p.n, block, cols, rank % cols}.local()};
}

/// Whether the broadcasts of a run on `backend` can go over NCCL: on a CUDA backend of a build
/// with NCCL.
inline bool nccl_possible([[maybe_unused]] const std::string& backend) {
#ifdef TILEMM_HAVE_NCCL
  return backend == "cuda";
#else
  return false;
#endif
}

/// Throws InputError where problem `p`'s keys of an MPI run cannot run over `ranks` ranks: a `grid`
/// of another number of ranks, or `comm: nccl` where NCCL cannot broadcast (`nccl` false). The plan
/// checks every problem before the first one runs, so that exit status 2 means nothing ran.
inline void check_spread(const Problem& p, int ranks, bool nccl) {
  if (ranks == 1 || p.distribution.spread != Spread::Summa) return;  // the keys go unused
  const auto [rows, cols] = grid_of(p, ranks);
  if (rows * cols != ranks) {
    throw InputError(p.origin.where() + ": key 'grid': " + std::to_string(rows) + "x" +
                     std::to_string(cols) + " is " + std::to_string(rows * cols) +
                     " ranks, and this run has " + std::to_string(ranks));
  }
  if (p.distribution.comm == "nccl" && !nccl) {
    throw InputError(p.origin.where() +
                     ": key 'comm': 'nccl' needs a CUDA backend and a build with NCCL; 'mpi' or "
                     "'auto' broadcast over MPI");
  }
}

/// The bytes of backend memory the largest rank's pieces of a SUMMA product take
/// (distributed/summa.hpp), as bytes_needed (plan.hpp) counts a whole problem: its pieces of A, B,
/// C0 and C and two pairs of panels in the problem's precision; its rows of op(A) and columns of
/// op(B) for the reference (with double copies of them for a float problem), the reference C and
/// its norms in double. Saturates at SIZE_MAX.
inline std::size_t piece_bytes(const Problem& p, int ranks) {
  const auto mul = saturating_mul, add = saturating_add;
  const auto [rows, cols] = grid_of(p, ranks);
  const auto [block, panel] = block_and_panel(p);
  // Process (0, 0) holds the most of every dimension.
  const std::size_t m = BlockCyclic{p.m, block, rows, 0}.local(),
                    n = BlockCyclic{p.n, block, cols, 0}.local(),
                    ka = BlockCyclic{p.k, block, cols, 0}.local(),
                    kb = BlockCyclic{p.k, block, rows, 0}.local(), k = p.k;
  const std::size_t s = p.scalar_bytes();
  std::size_t pieces = add(add(mul(m, ka), mul(kb, n)), mul(2, mul(m, n)));
  pieces = add(pieces, mul(2 * std::size_t(panel), add(m, n)));
  const std::size_t reference_operands = add(mul(m, k), mul(k, n));
  std::size_t bytes = mul(s, add(pieces, reference_operands));
  bytes = add(bytes, mul(8, add(mul(m, n), add(m, n))));
  if (p.precision == Precision::Float) bytes = add(bytes, mul(8, reference_operands));
  return bytes;
}

}  // namespace tilemm::distributed
