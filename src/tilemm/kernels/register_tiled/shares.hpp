// register-tiled's pipelined schedule (register_tiled/pipeline.hpp) in its form for the compiled-in
// double tiles:
//
//   stage = my share of the first K block, which starts before k = 0 and holds K's remainder
//   As[0], Bs[0] = stage; team_barrier
//   a, b = my fragments of step 0
//   for each K block but the last:
//     stage = my share of the next K block         a whole block: only M and N edges to check
//     acc += a (x) b; steps 1 .. BK-2 as before; a, b = my fragments of step BK-1
//     the other buffer's As, Bs = stage; team_barrier
//     a', b' = my fragments of the next block's step 0; acc += a (x) b; a, b = a', b'
//   the last K block's steps, as above, with no next block
//
// It transforms the pipeline three ways more:
// - Shares: a thread's share of a panel is a set of items at one position along the panel's
//   lines, on lines a fixed distance apart. Its address and its scratch offset are worked out
//   once; a K block moves the address by a constant, and an item outside op(X) is not read but
//   zero, by a mask made once: the K loop holds no index arithmetic and no second path for the
//   edges. Where every extent is even and the operands lie on 16 bytes, an item is two neighbours
//   (pairs), 16 bytes a load: half the load instructions, addresses and masks.
// - The first K block holds K's remainder, zero outside op(X) and before k = 0, so that every
//   later block is whole; the sums still run in k order, from zeros.
// - A K block's last step is multiplied after the barrier, its fragments already in registers,
//   while the next block's first fragments are read: no thread waits at the barrier with
//   multiply-adds still to issue. (Both as CUTLASS's SIMT GEMM does.)
// Float's tiles keep the staged quads of register_tiled/pipeline.hpp: shares of 4-byte scalars, a
// scalar a load, are slower.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/register_tiled/pipeline.hpp"
#include "tilemm/kernels/unroll.hpp"

namespace tilemm::kernels {

template <class ExecSpace, class Scalar, class Layout, class Variant>
struct RegisterTiledShares {
  using Kernel = RegisterTiledGemm<ExecSpace, Scalar, Layout, Variant>;
  using Shape = typename Variant::shape;
  using Member = typename Kernel::Member;
  using Panel = typename Kernel::Panel;
  using Place = typename Kernel::Place;
  static constexpr int TM = Variant::tm, TN = Variant::tn;
  static constexpr int kTeam = Kernel::kTeam;
  static constexpr bool kOpsNN = Variant::ops_nn, kWholeK = Variant::whole_k;
  static constexpr bool kPairs = Variant::pairs;

  // Each panel's lines, either way round, must divide the team. (A shape read at run time has no
  // team to divide: kTeam is 0, and nvcc warns of a % 0 that the && would skip, so the test is not
  // compiled for it.)
  static constexpr bool divides_team(int rows, int cols) {
    if constexpr (Shape::fixed) {
      return kTeam % rows == 0 && kTeam % cols == 0 && (rows * cols) % kTeam == 0;
    } else {
      return false;
    }
  }
  static constexpr bool kShares = Kernel::kPipelined && sizeof(Scalar) == 8 &&
                                  divides_team(Shape::bm, Shape::bk) &&
                                  divides_team(Shape::bk, Shape::bn);
  static_assert(!kShares || Shape::bk >= 2, "a K block's first and last steps are apart");
  static constexpr int kShareA = kShares ? Shape::bm * Shape::bk / std::max(kTeam, 1) : 1;
  static constexpr int kShareB = kShares ? Shape::bk * Shape::bn / std::max(kTeam, 1) : 1;
  // Pairs only where the launch found every pair inside op(X) and aligned
  // (RegisterTiled::pairs_fit): even extents and leading dimensions, data on 16 bytes.
  static constexpr bool kPairsFit = kShares && kShareA % 2 == 0 && kShareB % 2 == 0 &&
                                    Shape::bm % 2 == 0 && Shape::bn % 2 == 0 && Shape::bk % 2 == 0;
  static_assert(!kPairs || kPairsFit, "pairs need shares of whole pairs");
  static constexpr int kWidth = kPairs ? 2 : 1;  // scalars a load of a share
  using Item = Vec<Scalar, kWidth>;
  static constexpr int kItemsA = kShareA / kWidth, kItemsB = kShareB / kWidth;

  /// Whether a share's elements lie within 32-bit offsets of its address (Share::src_step), with
  /// `leading` the larger of A's and B's leading dimensions: the farthest lies less than a panel's
  /// lines times that away. Kernels without shares have no such offsets.
  static constexpr bool offsets_fit(int leading) {
    constexpr int lines = std::max({Shape::bm, Shape::bn, Shape::bk});
    return !kShares || std::int64_t(lines) * leading <= std::numeric_limits<int>::max();
  }

  /// A thread's share of a panel: kN / kWidth items of kWidth neighbours at one position along the
  /// panel's lines (runs of neighbours in X's memory), on lines team / (length / kWidth) apart, so
  /// that neighbouring threads read neighbouring addresses.
  struct Share {
    const Scalar* src;         // the first item, at the current K block
    int src_step;              // between the items (32 bits: offsets_fit())
    std::ptrdiff_t k_step;     // the next K block
    int dst, dst_step;         // scratch offsets: the first item, between the items
    int dst_pos;               // scratch offset between an item's neighbours
    int line, line_step, pos;  // the first item's line and position in the panel
    int fixed_left;            // lines (positions, when K runs along lines) left in op(X)
    bool k_along_lines;        // K runs along the panel's lines, not along its positions
    // The next k. (Placed second, with the second block's address made as k_first * k_unit +
    // k_step, the same kernel had the same registers and a slower schedule.)
    std::ptrdiff_t k_unit;
  };
  /// `p` is the panel at K block 0; `fixed_left` the rows of op(A) (columns of op(B)) from the
  /// panel's first on; `k_is_col`: K is op(X)'s column index (A) or row index (B).
  template <class Op>
  KOKKOS_INLINE_FUNCTION static Share share(const Kernel& k, const Op& x, const Panel& p, int rank,
                                            int fixed_left, bool k_is_col) {
    const int items = p.length / kWidth;  // a line's
    const int ld = x.leading(), per_line = k.threads() / items;
    const int line = rank / items, pos = kWidth * (rank % items);
    const bool k_along_lines = p.along_cols != k_is_col;
    // op(X)(row0, col0) from the data pointer: no index of X is formed (K may be 0).
    const std::ptrdiff_t origin =
        p.along_cols ? std::ptrdiff_t(p.row0) * ld + p.col0 : std::ptrdiff_t(p.col0) * ld + p.row0;
    return {x.x.data() + origin + std::ptrdiff_t(line) * ld + pos,
            per_line * ld,
            k_along_lines ? std::ptrdiff_t(k.bk()) * ld : std::ptrdiff_t(k.bk()),
            line * p.dst_line + pos * p.dst_pos,
            per_line * p.dst_line,
            p.dst_pos,
            line,
            per_line,
            pos,
            fixed_left,
            k_along_lines,
            k_along_lines ? std::ptrdiff_t(ld) : std::ptrdiff_t(1)};
  }
  /// Whether neighbour i of item e of the share lies inside op(X) along M (A) or N (B). (Pairs
  /// run along M or N only where that extent is even: a pair is inside when its first is.)
  KOKKOS_INLINE_FUNCTION static bool inside_fixed(const Share& s, int e, int i = 0) {
    return s.k_along_lines ? s.pos + i < s.fixed_left : s.line + e * s.line_step < s.fixed_left;
  }
  /// Neighbour i of item e: its k within its K block.
  KOKKOS_INLINE_FUNCTION static int k_index(const Share& s, int e, int i) {
    return s.k_along_lines ? s.line + e * s.line_step : s.pos + i;
  }
  /// The first K block, which starts at k_first <= 0: zero outside op(X), before k = 0 included;
  /// a scalar a load, each under its own mask along K (it runs once a team, outside the loop).
  template <int kN>
  KOKKOS_INLINE_FUNCTION static void load_first(const Share& s, int k_first, int K,
                                                Scalar (&stage)[kN]) {
    TILEMM_UNROLL
    for (int e = 0; e < kN / kWidth; ++e) {
      TILEMM_UNROLL
      for (int i = 0; i < kWidth; ++i) {
        const int k = k_first + k_index(s, e, i);
        const bool inside = inside_fixed(s, e, i) && k >= 0 && k < K;
        stage[kWidth * e + i] =
            inside ? s.src[std::ptrdiff_t(e * s.src_step + i) + k_first * s.k_unit] : Scalar(0);
      }
    }
  }
  /// A whole K block, inside op(X) along K: an item outside along M or N (mask `inside`) is not
  /// read and keeps its stage, zero since load_first(). Each item's address is made from the one
  /// before: ptxas schedules that better than e * src_step.
  template <int kN>
  KOKKOS_INLINE_FUNCTION static void load_whole(const Share& s, const bool (&inside)[kN / kWidth],
                                                Scalar (&stage)[kN]) {
    const Scalar* element = s.src;
    TILEMM_UNROLL
    for (int e = 0; e < kN / kWidth; ++e, element += s.src_step) {
      if (inside[e]) {
        const Item item = *reinterpret_cast<const Item*>(element);
        TILEMM_UNROLL
        for (int i = 0; i < kWidth; ++i) stage[kWidth * e + i] = item.v[i];
      }
    }
  }
  /// The share into scratch: an item a store where its neighbours are neighbours there too (B's
  /// panel where op(B) runs along N in memory, A's where op(A) runs along M), else a scalar a
  /// store.
  template <int kN>
  KOKKOS_INLINE_FUNCTION static void put(const Share& s, Scalar* panel, const Scalar (&stage)[kN]) {
    TILEMM_UNROLL
    for (int e = 0; e < kN / kWidth; ++e) {
      Scalar* dst = panel + s.dst + e * s.dst_step;
      if (kWidth > 1 && s.dst_pos == 1) {
        Item item;
        TILEMM_UNROLL
        for (int i = 0; i < kWidth; ++i) item.v[i] = stage[kWidth * e + i];
        *reinterpret_cast<Item*>(dst) = item;
      } else {
        TILEMM_UNROLL
        for (int i = 0; i < kWidth; ++i) dst[i * s.dst_pos] = stage[kWidth * e + i];
      }
    }
  }

  /// A K block's outer products but the last step's, with the first step's fragments already in
  /// registers (a_first, b_first), and the last step's fragments read into a_last, b_last (its
  /// multiply-adds wait for the barrier: run()).
  KOKKOS_FORCEINLINE_FUNCTION static void steps_but_last(
      const Kernel& k, Scalar (&acc)[TM][TN], const Scalar* As, const Scalar* Bs, const Place& p,
      const Scalar (&a_first)[TM], const Scalar (&b_first)[TN], Scalar (&a_last)[TM],
      Scalar (&b_last)[TN]) {
    k.outer_product(acc, a_first, b_first);
    TILEMM_UNROLL
    for (int kk = 1; kk < Shape::bk - 1; ++kk) k.multiply_step(acc, As, Bs, p, kk);
    k.fragments(As, Bs, p, Shape::bk - 1, a_last, b_last);
  }

  /// acc += the products of the team's panels of op(A) and op(B) over [k_begin, k_end), by the
  /// pipeline above.
  KOKKOS_FORCEINLINE_FUNCTION static void run(const Kernel& k, const Member& team, int rank,
                                              const Place& p, Scalar (&acc)[TM][TN], int row0,
                                              int col0, int k_begin, int k_end, Scalar* As,
                                              Scalar* Bs) {
    const int K = k_end - k_begin, buffer_size = k.buffer_size();
    Scalar stage_a[kShareA], stage_b[kShareB];
    Share a = share(k, k.op_a(), k.a_panel(As, row0, k_begin), rank, k.g.m() - row0, true);
    Share b = share(k, k.op_b(), k.b_panel(Bs, k_begin, col0), rank, k.g.n() - col0, false);
    const int blocks = (K + k.bk() - 1) / k.bk(), k_first = K - blocks * k.bk();
    load_first(a, k_first, K, stage_a);
    load_first(b, k_first, K, stage_b);
    put(a, As, stage_a);
    put(b, Bs, stage_b);
    team.team_barrier();
    bool inside_a[kItemsA], inside_b[kItemsB];  // read in whole blocks; none if there are none
    TILEMM_UNROLL
    for (int e = 0; e < kItemsA; ++e) inside_a[e] = blocks > 1 && inside_fixed(a, e);
    TILEMM_UNROLL
    for (int e = 0; e < kItemsB; ++e) inside_b[e] = blocks > 1 && inside_fixed(b, e);
    a.src += std::ptrdiff_t(k_first + k.bk()) * a.k_unit;  // the second block
    b.src += std::ptrdiff_t(k_first + k.bk()) * b.k_unit;
    Scalar a_first[TM], b_first[TN], a_last[TM], b_last[TN];
    k.fragments(As, Bs, p, 0, a_first, b_first);
    // The last block, apart, only multiplies, so that the loop holds no test of whether a next
    // block exists. The buffers swap by an exclusive or of their offsets. The next block's
    // addresses are made where ptxas schedules each kernel best: in the kernels compiled for op NN
    // with pairs, right after the stores; in the other whole-K kernels compiled for op NN, past
    // the loop's test; in the rest before it (then past the last block, never read).
    constexpr bool kStepAfterStores = kOpsNN && kPairs;
    int current = 0, other = buffer_size;
    for (int block = 1; block < blocks; ++block) {
      load_whole(a, inside_a, stage_a);  // in flight during the multiply-adds
      load_whole(b, inside_b, stage_b);
      steps_but_last(k, acc, As + current, Bs + current, p, a_first, b_first, a_last, b_last);
      put(a, As + other, stage_a);  // last read before the previous barrier
      put(b, Bs + other, stage_b);
      if constexpr (kStepAfterStores) {
        a.src += a.k_step;
        b.src += b.k_step;
      }
      team.team_barrier();
      // The next block's first fragments, while the last step's multiply-adds issue.
      k.fragments(As + other, Bs + other, p, 0, a_first, b_first);
      k.outer_product(acc, a_last, b_last);
      current ^= buffer_size;
      other ^= buffer_size;
      if constexpr (!kStepAfterStores) {
        if constexpr (kOpsNN && kWholeK) {
          if (block + 1 == blocks) break;
        }
        a.src += a.k_step;
        b.src += b.k_step;
      }
    }
    if (blocks > 0) {
      steps_but_last(k, acc, As + current, Bs + current, p, a_first, b_first, a_last, b_last);
      k.outer_product(acc, a_last, b_last);
    }
  }
};

}  // namespace tilemm::kernels
