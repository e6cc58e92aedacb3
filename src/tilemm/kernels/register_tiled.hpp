// register-tiled: the outer-product form. Each thread multiplies a TM x TN block of C held in
// registers, so that one value read from scratch feeds TM or TN multiply-adds instead of one.
//
//   each team owns a BM x BN tile of C, cut into (BM/TM) x (BN/TN) thread tiles:
//     for k0 = 0, BK, 2 BK, ... < K:
//       As = op(A)[tile rows, k0 : k0+BK]^T      cooperative load, transposed, zero outside
//       Bs = op(B)[k0 : k0+BK, tile cols]
//       team_barrier
//       for each of my thread tiles:
//         for kk < BK:
//           regA[TM] = As[kk][my rows]           16-byte reads from scratch
//           regB[TN] = Bs[kk][my cols]
//           acc += regA (x) regB                  TM * TN multiply-adds from registers
//       team_barrier
//     C[my thread tiles] = alpha * acc + beta * C   elements outside C skipped
//
// Split K (a few tiles of C, a long K; or the tiles of a last wave of teams that would leave most
// processors idle): teams take the launch's tiles of C for each of split_k ranges of K, store acc
// unscaled as a partial tile of their range, and a second pass adds the partials in range order:
// C = alpha * sum + beta * C. Tiles before the split ones run whole K in a launch of their own.
//
// Two schedules of that one source, chosen by the launch's team size:
// - resident (team size = number of thread tiles; the GPU launch): acc stays in registers for the
//   whole K loop. A thread's rows are strips of 16 bytes spaced apart (its columns likewise), so
//   that neighbouring threads read neighbouring 16-byte words of scratch: no bank conflicts. In
//   compiled-in double tiles each warp's threads tile a region of their own, in CUTLASS's lane
//   order, which halves the shared-memory wavefronts of the reads of Bs (place()).
//   The panels are double-buffered: each thread fetches its share of the next K block into
//   registers before it multiplies the current one, so the loads are in flight during the
//   multiply-adds, and stores them to the other buffer after: one team_barrier per K block.
//   Compiled-in double tiles fetch their shares from an address worked out once (Share), two
//   neighbours (16 bytes) a load where the operands allow it, else a scalar at a time.
//   Their first K block starts before k = 0 and holds K's remainder, zero outside op(X), so that
//   every later block is whole and its loads check only the M and N edges, by masks made once;
//   and each K block's last step is multiplied after the barrier, its fragments already in
//   registers, so that no thread waits at the barrier with multiply-adds still to issue (both as
//   CUTLASS's SIMT GEMM does; perf/LOG.md v11).
// - shared (fewer threads than thread tiles, or shares too large to stage in registers; a team of
//   one thread on a CPU core, as in GotoBLAS): each thread tile is contiguous, so that a row of it
//   fills vector registers, and its accumulators wait in scratch (Cs) between K blocks. That costs
//   2 TM TN scratch accesses per BK TM TN multiply-adds, so BK is large on CPUs (128, 256) and the
//   panels live in level-1 scratch. On a CPU a row of a thread tile is held as vector registers
//   (host_vector.hpp), and the A panel keeps op(A)'s memory order: a value of A is read alone, so
//   it need not be transposed.
//
// Teams visit the tiles of C in bands of kBand tile-rows, column by column within a band, so that
// the panels of B a band needs are still in cache when its next tile-row reads them.
//
// The launch (register_tiled_launch.hpp) picks the tile, the team size and the split of K, checks
// them, and picks which compiled kernel runs them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/host_vector.hpp"
#include "tilemm/kernels/register_tiled_panel.hpp"
#include "tilemm/kernels/team_launch.hpp"
#include "tilemm/kernels/unroll.hpp"

namespace tilemm::kernels {

/// W consecutive scalars, aligned to their size, so that the fewest load instructions read them (a
/// GPU's widest load is 16 bytes: a double Quad takes two).
template <class Scalar, int W>
struct alignas(W * sizeof(Scalar)) Vec {
  Scalar v[W];
};
/// Four: the unit in which panels are fetched (a double quad is two 16-byte loads; fetched 16 bytes
/// a load instead, double ran 4% slower: perf/LOG.md v6).
template <class Scalar>
using Quad = Vec<Scalar, 4>;

/// A team tile BM x BN x BK fixed at compile time, or (all zero) taken from the launch. Fixed, the
/// K block's loop unrolls with constant scratch offsets and each thread's share of a panel is
/// found without divisions: the backend's default tiles are compiled so.
template <int BM, int BN, int BK>
struct TileShape {
  static constexpr int bm = BM, bn = BN, bk = BK;
  static constexpr bool fixed = BM > 0;
};
using RuntimeShape = TileShape<0, 0, 0>;

/// The two schedules of one source (above): accumulators in scratch between K blocks, or in
/// registers for the whole K loop with the panels double-buffered through registers.
enum class Schedule { shared, pipelined };

/// The compile-time choices of one register-tiled kernel: its thread tile TM x TN, its schedule,
/// its team tile (fixed, or read at run time), and three forms of the pipelined schedule compiled
/// for what a launch knows of its operands: op(A) = A and op(B) = B (ops_nn), K not split
/// (whole_k), shares read in pairs (pairs).
template <int TM, int TN, Schedule S, class Shape = RuntimeShape, bool OpsNN = false,
          bool WholeK = false, bool Pairs = false>
struct RegisterTiledVariant {
  static constexpr int tm = TM, tn = TN;
  static constexpr Schedule schedule = S;
  using shape = Shape;
  static constexpr bool ops_nn = OpsNN, whole_k = WholeK, pairs = Pairs;
  using with_ops_nn = RegisterTiledVariant<TM, TN, S, Shape, true, WholeK, Pairs>;
  using with_whole_k = RegisterTiledVariant<TM, TN, S, Shape, OpsNN, true, Pairs>;
  using with_pairs = RegisterTiledVariant<TM, TN, S, Shape, OpsNN, WholeK, true>;
};

template <class ExecSpace, class Scalar, class Layout, class Variant>
struct RegisterTiledGemm {
  static constexpr int TM = Variant::tm, TN = Variant::tn;
  using Shape = typename Variant::shape;
  static constexpr bool kResident = Variant::schedule == Schedule::pipelined;
  static constexpr bool kOpsNN = Variant::ops_nn, kWholeK = Variant::whole_k;
  static constexpr bool kPairs = Variant::pairs;
  static_assert((runs_on_cpu<ExecSpace>() || TM % 4 == 0) && TN % 4 == 0,
                "thread tiles are made of 4 x 4 blocks (on CPUs, 2 x 4)");
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  using OpN = OpView<typename Operands::const_matrix, 0>;

  /// A fixed tile's team size is known, and so the registers a thread may have: ask the compiler
  /// for two teams a multiprocessor (65536 registers) when the accumulators take at most half of
  /// that budget, so that one team multiplies while the other waits at its barrier.
  static constexpr int kTeam = Shape::fixed ? (Shape::bm / TM) * (Shape::bn / TN) : 0;
  static constexpr int kAccRegisters = TM * TN * int(sizeof(Scalar) / 4);
  static constexpr int teams_per_multiprocessor(int acc_registers, int team) {
    return 2 * acc_registers * 2 * team <= 65536 ? 2 : 1;
  }
  static constexpr int kMinTeams = teams_per_multiprocessor(kAccRegisters, kTeam);
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kTeam, kTeam ? kMinTeams : 0>>;
  using Member = typename Policy::member_type;

  // A GPU thread reads its fragments of As and Bs 16 bytes an instruction; a CPU core a scalar at
  // a time, so that each value of A can go from memory into the instruction that broadcasts it.
  static constexpr bool kOnCpu = runs_on_cpu<ExecSpace>();
  static constexpr bool kStripReads = !kOnCpu;
  // A thread tile's rows and columns come in strips of kStrip neighbours: 16 bytes, the widest
  // load of a GPU thread, so that a double strip is one load (on CPUs, where it is not read as
  // one, 4, or 2 for the thread tiles of 6 rows of targets with 16 vector registers).
  static constexpr int kStrip = kOnCpu ? (TM % 4 == 0 ? 4 : 2) : int(16 / sizeof(Scalar));
  // Scalars added to each scratch row, so that a transposed store spreads over the banks: a strip,
  // which keeps rows aligned for strip reads. In double on a GPU, 4 (32 bytes) left a warp's
  // transposed store of A with 2-way bank conflicts: 4 wavefronts an STS.64, against 2 (v14). On
  // CPUs 4 whatever the strip (host_vector.hpp loads need no alignment).
  static constexpr int kPad = kOnCpu ? 4 : kStrip;
  static constexpr int kBand = 8;    // tile-rows per band of the tile order
  static constexpr int kAlign = 64;  // bytes: the scratch base is rounded up to this
  static_assert(TM % kStrip == 0 && TN % kStrip == 0, "thread tiles are made of strips");
  // Shared schedule on a CPU: a row of a thread tile is whole vector registers (host_vector.hpp)
  // where the compiler has vector types and the row fills them.
#ifdef TILEMM_HOST_VECTORS
  static constexpr int kLanes = kOnCpu ? HostVector<Scalar>::lanes : 1;
#else
  static constexpr int kLanes = 1;
#endif
  static constexpr bool kVectorRows = !kResident && kLanes > 1 && TN % kLanes == 0;
  // Resident: the most elements of a panel rows x cols that one thread stages in registers; a
  // fixed tile's share exactly (a multiple of 4, for Quad loads). When the panel's quads divide
  // evenly among the team, every thread has its full share of them and need not check.
  static constexpr int kRuntimeStage = 8;  // a tile that is not compiled in
  static constexpr int stage_size(int rows, int cols) {
    return Shape::fixed ? ((rows * cols + kTeam - 1) / std::max(kTeam, 1) + 3) / 4 * 4
                        : kRuntimeStage;
  }
  static constexpr bool even_quads(int rows, int cols) {
    return Shape::fixed && (rows * cols) % (4 * std::max(kTeam, 1)) == 0;
  }
  static constexpr int kStageA = stage_size(Shape::bm, Shape::bk);
  static constexpr int kStageB = stage_size(Shape::bk, Shape::bn);
  static constexpr bool kEvenA = even_quads(Shape::bm, Shape::bk);
  static constexpr bool kEvenB = even_quads(Shape::bk, Shape::bn);

  // Resident double tiles compiled in copy their panels in shares (Share): a scalar or a pair a
  // load (kPairs), edges zero-filled by masks made once, no index arithmetic or second path for the
  // edges in the K loop (perf/LOG.md v10c: 1.05x-1.2x). Float keeps fetch()'s aligned quads: with
  // one 4-byte scalar a load it ran at 0.94x. Each panel's lines, either way round, must divide the
  // team. (A shape read at run time has no team to divide: kTeam is 0, and nvcc warns of a % 0
  // that the && would skip, so the test is not compiled for it.)
  static constexpr bool divides_team(int rows, int cols) {
    if constexpr (Shape::fixed) {
      return kTeam % rows == 0 && kTeam % cols == 0 && (rows * cols) % kTeam == 0;
    } else {
      return false;
    }
  }
  static constexpr bool kShares = kResident && sizeof(Scalar) == 8 &&
                                  divides_team(Shape::bm, Shape::bk) &&
                                  divides_team(Shape::bk, Shape::bn);
  static_assert(!kShares || Shape::bk >= 2, "a K block's first and last steps are apart");
  static constexpr int kShareA = kShares ? Shape::bm * Shape::bk / std::max(kTeam, 1) : 1;
  static constexpr int kShareB = kShares ? Shape::bk * Shape::bn / std::max(kTeam, 1) : 1;
  // Shares read in pairs of neighbours (kPairs), 16 bytes a load: half the load instructions, and
  // half the addresses and masks to keep (+0.9% to +2.7% over single loads in double 128x128x8/8x8
  // op NN, perf/LOG.md stop 35). Only where the launch found every pair inside op(X) and aligned
  // (RegisterTiled::pairs_fit): even extents and leading dimensions, data on 16 bytes.
  static constexpr bool kPairsFit = kShares && kShareA % 2 == 0 && kShareB % 2 == 0 &&
                                    Shape::bm % 2 == 0 && Shape::bn % 2 == 0 && Shape::bk % 2 == 0;
  static_assert(!kPairs || kPairsFit, "pairs need shares of whole pairs");
  static constexpr int kWidth = kPairs ? 2 : 1;  // scalars a load of a share
  using Item = Vec<Scalar, kWidth>;
  static constexpr int kItemsA = kShareA / kWidth, kItemsB = kShareB / kWidth;

  Operands g;
  int BM = 0, BN = 0, BK = 0;  // the launch's tile; Shape's when it is fixed
  int tiles_m = 1, tiles_n = 1;
  int level = 0;                          // team scratch level
  bool quads_a = false, quads_b = false;  // A's, B's runs of 4 are aligned for Quad loads
  int splits = 1, k_split = 0;  // K in `splits` ranges of k_split (whole K blocks; the last less)
  Scalar* partials = nullptr;   // a partial tile per tile and range (splits > 1): partial_index
  int tile_begin = 0, tile_count = 0;  // this launch's tiles, tile_count from tile_begin in order

  KOKKOS_INLINE_FUNCTION int bm() const {
    if constexpr (Shape::fixed) return Shape::bm;
    return BM;
  }
  KOKKOS_INLINE_FUNCTION int bn() const {
    if constexpr (Shape::fixed) return Shape::bn;
    return BN;
  }
  KOKKOS_INLINE_FUNCTION int bk() const {
    if constexpr (Shape::fixed) return Shape::bk;
    return BK;
  }
  /// The tile a fixed Shape compiles in.
  static Tiling fixed_tile() {
    return {Shape::bm, Shape::bn, Shape::bk, TM, TN};
  }
  /// Whether this launch splits K; never in a kernel compiled for launches that do not.
  KOKKOS_INLINE_FUNCTION bool split_launch() const {
    return !kWholeK && splits > 1;
  }
  /// Resident schedule: a thread per thread tile.
  KOKKOS_INLINE_FUNCTION int threads() const {
    return (bm() / TM) * (bn() / TN);
  }

  /// Team scratch: As and Bs twice (resident: double-buffered), or once with Cs (shared), and room
  /// to align the base.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int bm, int bn, int bk) {
    const std::size_t panels = a_panel_size<std::size_t>(bm, bk) + std::size_t(bk) * (bn + kPad);
    return sizeof(Scalar) * (kResident ? 2 * panels : panels + std::size_t(bm) * bn) + kAlign;
  }

  /// Whether a share's elements lie within 32-bit offsets of its address (Share::src_step), with
  /// `leading` the larger of A's and B's leading dimensions: the farthest lies less than a panel's
  /// lines times that away. Kernels without shares have no such offsets.
  static constexpr bool offsets_fit(int leading) {
    constexpr int lines = std::max({Shape::bm, Shape::bn, Shape::bk});
    return !kShares || std::int64_t(lines) * leading <= std::numeric_limits<int>::max();
  }

  /// Whether each of `team` threads can stage its share of both panels in the registers a tile
  /// that is not compiled in has for them.
  static bool shares_fit(int bm, int bn, int bk, int team) {
    return ceil_div(std::int64_t(bm) * bk, team) <= kRuntimeStage &&
           ceil_div(std::int64_t(bk) * bn, team) <= kRuntimeStage;
  }

  /// Where the partial tile of range `split` holds element (r, c) of the launch's tile `local`
  /// (its place from tile_begin): a bm x bn tile in C's layout, a range's tiles one after another.
  KOKKOS_INLINE_FUNCTION std::size_t partial_index(int split, int local, int r, int c) const {
    constexpr bool right = std::is_same_v<Layout, Kokkos::LayoutRight>;
    const std::size_t tile = std::size_t(split) * tile_count + local;
    return right ? (tile * bm() + r) * bn() + c : (tile * bn() + c) * bm() + r;
  }
  /// C = alpha * (partial 0 + partial 1 + ...) + beta * C over the launch's tiles, the partials
  /// added in the order of their ranges of K, so that a result does not change from run to run.
  void sum_splits() const {
    const RegisterTiledGemm k = *this;
    constexpr bool right = std::is_same_v<Layout, Kokkos::LayoutRight>;
    const std::int64_t area = std::int64_t(bm()) * bn(), per_split = area * tile_count;
    Kokkos::parallel_for(
        "tilemm::register_tiled::sum_splits",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, per_split),
        KOKKOS_LAMBDA(const std::int64_t e) {
          // e runs along a partial tile's memory, in C's layout, so that neighbouring threads
          // touch neighbouring elements of C too.
          const int local = int(e / area), in_tile = int(e % area);
          const int r = right ? in_tile / k.bn() : in_tile % k.bm();
          const int c = right ? in_tile % k.bn() : in_tile / k.bm();
          int tile_m, tile_n;
          k.tile_of(k.tile_begin + local, tile_m, tile_n);
          const int row = tile_m * k.bm() + r, col = tile_n * k.bn() + c;
          if (row >= k.g.m() || col >= k.g.n()) return;  // never stored: outside C
          Scalar sum = k.partials[e];
          for (int s = 1; s < k.splits; ++s) sum += k.partials[s * per_split + e];
          scale_into(k.g.c(row, col), sum, k.g.alpha, k.g.beta);
        });
  }

  /// Row and column of the tile that team `rank` computes: bands of kBand tile-rows, column by
  /// column within a band.
  KOKKOS_INLINE_FUNCTION void tile_of(int rank, int& tile_m, int& tile_n) const {
    const int per_band = kBand * tiles_n;
    const int first_m = (rank / per_band) * kBand;
    const int band_rows = tiles_m - first_m < kBand ? tiles_m - first_m : kBand;
    const int in_band = rank % per_band;
    tile_m = first_m + in_band % band_rows;
    tile_n = in_band / band_rows;
  }

  /// A team's panels in scratch, and a thread's walk over one (register_tiled_panel.hpp).
  using Panel = ScratchPanel<Scalar>;
  using Walk = PanelWalk;

  /// op(X) as this kernel reads it: with the op fixed at compile time, or `x` itself (a
  /// reference, not a copy).
  KOKKOS_INLINE_FUNCTION static decltype(auto) as_read(const typename Operands::OpMatrix& x) {
    if constexpr (kOpsNN) {
      return OpN{x.x};
    } else {
      return (x);
    }
  }
  KOKKOS_INLINE_FUNCTION decltype(auto) op_a() const {
    return as_read(g.a);
  }
  KOKKOS_INLINE_FUNCTION decltype(auto) op_b() const {
    return as_read(g.b);
  }

  /// The A panel is transposed in scratch, so that a column of it is contiguous for a GPU thread's
  /// strips; a CPU's vector rows (kVectorRows) read it a scalar at a time, from either order, so
  /// there it keeps op(A)'s memory order and is copied without transposing: rows of op(A) when
  /// they are contiguous.
  KOKKOS_INLINE_FUNCTION bool a_rows_in_scratch() const {
    return kVectorRows && op_a().contiguous_along_cols();
  }
  KOKKOS_INLINE_FUNCTION Panel a_panel(Scalar* dst, int row0, int k0) const {
    const bool rows = a_rows_in_scratch();
    return Panel(dst, rows ? bk() + kPad : bm() + kPad, !rows, row0, k0, bm(), bk(),
                 op_a().contiguous_along_cols());
  }
  /// Scalars of scratch for the A panel in either order (Int: size_t where a launch is checked,
  /// int in the kernel, whose 32-bit offsets take fewer registers).
  template <class Int>
  KOKKOS_INLINE_FUNCTION static Int a_panel_size(Int bm, Int bk) {
    const Int transposed = bk * (bm + kPad), rows = bm * (bk + kPad);
    return kVectorRows && rows > transposed ? rows : transposed;
  }
  KOKKOS_INLINE_FUNCTION Panel b_panel(Scalar* dst, int k0, int col0) const {
    return Panel(dst, bn() + kPad, false, k0, col0, bk(), bn(), op_b().contiguous_along_cols());
  }

  /// Resident schedule: this thread's share of the panel into registers (the launch's plan()
  /// checked that it has at most N elements), 4 neighbours a load when the panel lies inside op(X)
  /// and its runs of 4 are aligned; `quad_walk` is where this thread's walk over such a panel
  /// starts, made once before the K loop: made in the loop, its divisions by run-time extents would
  /// be done again for every K block. Returns whether the panel was read by quads, for deposit().
  template <bool kEven, int N, class Op>
  KOKKOS_INLINE_FUNCTION bool fetch(const Op& x, bool quads_ok, const Panel& p, int rank,
                                    const Walk& quad_walk, Scalar (&stage)[N]) const {
    const bool quads = quads_ok && p.length % 4 == 0 && p.inside(x);
    if (quads) {
      const Scalar* origin = x.pointer(p.row0, p.col0);
      const int ld = x.leading();
      Walk w = quad_walk;
      TILEMM_UNROLL
      for (int s = 0; s < N / 4; ++s, w.next()) {
        if (kEven || w.more()) {
          const auto q = *reinterpret_cast<const Quad<Scalar>*>(
              origin + std::ptrdiff_t(w.line) * ld + w.pos());
          TILEMM_UNROLL
          for (int i = 0; i < 4; ++i) stage[4 * s + i] = q.v[i];
        }
      }
    } else {
      Walk w = p.walk(rank, threads(), 1);
      TILEMM_UNROLL
      for (int s = 0; s < N; ++s, w.next()) {
        if (w.more()) stage[s] = p.value(x, w.line, w.pos());
      }
    }
    return quads;
  }

  /// Quad q into panel p at (line, pos): a strip a store where neighbours along a line are
  /// neighbours in scratch too (scratch rows are aligned to strips: kPad), else a scalar a store.
  KOKKOS_INLINE_FUNCTION static void put_quad(const Panel& p, int line, int pos,
                                              const Quad<Scalar>& q) {
    if (p.dst_along_lines()) {
      using Strip = Vec<Scalar, kStrip>;
      TILEMM_UNROLL
      for (int i = 0; i < 4; i += kStrip) {
        Strip strip;
        TILEMM_UNROLL
        for (int j = 0; j < kStrip; ++j) strip.v[j] = q.v[i + j];
        *reinterpret_cast<Strip*>(&p.at(line, pos + i)) = strip;
      }
    } else {
      TILEMM_UNROLL
      for (int i = 0; i < 4; ++i) p.at(line, pos + i) = q.v[i];
    }
  }
  /// ... and from registers to scratch, by the same walk. (v2 made every element's walk before
  /// the K loop; the compiler then kept each position in registers for the whole loop: 128 -> 228
  /// registers a thread for float 8x8. A quad walk's start is two numbers.)
  /// (Its stores keep the check even when the shares are even: without it, nvcc spilled float
  /// 128x128x16/8x8 at its 128 registers.)
  template <int N>
  KOKKOS_INLINE_FUNCTION void deposit(bool quads, const Panel& p, int rank, const Walk& quad_walk,
                                      const Scalar (&stage)[N]) const {
    if (quads) {
      Walk w = quad_walk;
      TILEMM_UNROLL
      for (int s = 0; s < N / 4; ++s, w.next()) {
        if (w.more()) {
          Quad<Scalar> q;
          TILEMM_UNROLL
          for (int i = 0; i < 4; ++i) q.v[i] = stage[4 * s + i];
          put_quad(p, w.line, w.pos(), q);
        }
      }
    } else {
      Walk w = p.walk(rank, threads(), 1);
      TILEMM_UNROLL
      for (int s = 0; s < N; ++s, w.next()) {
        if (w.more()) p.at(w.line, w.pos()) = stage[s];
      }
    }
  }

  /// Resident schedule of a compiled-in tile (kShares): a thread's share of a panel, kN / kWidth
  /// items of kWidth neighbours at one position along the panel's lines (runs of neighbours in X's
  /// memory), on lines team / (length / kWidth) apart, so that neighbouring threads read
  /// neighbouring addresses. Its address and its scratch offset are worked out once; a K block
  /// moves the address by a constant, and an item outside op(X) is not read but zero, so the K
  /// loop needs no second path for the edges.
  struct Share {
    const Scalar* src;         // the first item, at the current K block
    int src_step;              // between the items (32 bits: offsets_fit())
    std::ptrdiff_t k_step;     // the next K block
    int dst, dst_step;         // scratch offsets: the first item, between the items
    int dst_pos;               // scratch offset between an item's neighbours
    int line, line_step, pos;  // the first item's line and position in the panel
    int fixed_left;            // lines (positions, when K runs along lines) left in op(X)
    bool k_along_lines;        // K runs along the panel's lines, not along its positions
    // The next k. Placed second, with the second block's address as k_first * k_unit + k_step,
    // the same kernel ran double 128x128x8/8x8 op NN at 0.85x with the same registers
    // (perf/LOG.md v11): ptxas's schedule hangs on such details, so measure any change here.
    std::ptrdiff_t k_unit;
  };
  /// `p` is the panel at K block 0; `fixed_left` the rows of op(A) (columns of op(B)) from the
  /// panel's first on; `k_is_col`: K is op(X)'s column index (A) or row index (B).
  template <class Op>
  KOKKOS_INLINE_FUNCTION Share share(const Op& x, const Panel& p, int rank, int fixed_left,
                                     bool k_is_col) const {
    const int items = p.length / kWidth;  // a line's
    const int ld = x.leading(), per_line = threads() / items;
    const int line = rank / items, pos = kWidth * (rank % items);
    const bool k_along_lines = p.along_cols != k_is_col;
    // op(X)(row0, col0) from the data pointer: no index of X is formed (K may be 0).
    const std::ptrdiff_t origin =
        p.along_cols ? std::ptrdiff_t(p.row0) * ld + p.col0 : std::ptrdiff_t(p.col0) * ld + p.row0;
    return {x.x.data() + origin + std::ptrdiff_t(line) * ld + pos,
            per_line * ld,
            k_along_lines ? std::ptrdiff_t(bk()) * ld : std::ptrdiff_t(bk()),
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
  /// before (double 64x128x8/8x8 op NN: 1.05x against e * src_step, perf/LOG.md v12).
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

  /// Shared schedule: the whole team copies the panel, zero outside op(X). Inside, a line a
  /// thread, so that a CPU core copies it with vector instructions (on a GPU this schedule is the
  /// fallback for teams smaller than the tile's thread count; its reads are not coalesced).
  template <class Op>
  KOKKOS_INLINE_FUNCTION static void load(const Member& team, const Op& x, const Panel& p) {
    const int rank = team.team_rank(), size = team.team_size();
    if (p.inside(x)) {
      const Scalar* origin = x.pointer(p.row0, p.col0);
      const int ld = x.leading();
      if (p.dst_along_lines()) {
        for (int line = rank; line < p.lines; line += size) {
          const Scalar* src = origin + std::ptrdiff_t(line) * ld;
          Scalar* dst = &p.at(line, 0);
          for (int pos = 0; pos < p.length; ++pos) dst[pos] = src[pos];
        }
      } else {
        for (int pos = rank; pos < p.length; pos += size) {
          const Scalar* src = origin + pos;
          Scalar* dst = &p.at(0, pos);
          for (int line = 0; line < p.lines; ++line) dst[line] = src[std::ptrdiff_t(line) * ld];
        }
      }
    } else {
      for (Walk w(rank, size, p.lines, p.length, 1); w.more(); w.next()) {
        p.at(w.line, w.pos()) = p.value(x, w.line, w.pos());
      }
    }
  }

  /// Where thread tile t lies in the team's tile: its first row and column, and the distance
  /// between its strips of kStrip rows (columns). Shared: contiguous. Resident: interleaved with
  /// the other threads' strips, so that neighbouring threads read neighbouring 16-byte words of
  /// scratch; within a warp's region (kWarpGrid) or across the whole tile.
  struct Place {
    int m, n, stride_m, stride_n;
  };
  // A compiled-in double tile on a GPU: each warp's 32 thread tiles a kWarpM x kWarpN grid over
  // their own region of the tile, lanes interleaved as CUTLASS's SIMT warps do
  // (RowMajorInterleaved<2>): lane l at row 2 (l / 16) + l % 2 and column (l / 2) % 8. A 16-byte
  // read takes a wavefront for each 128 bytes of a half-warp's words, distinct within each of its
  // quarter-warps but not across them (measured: perf/LOG.md v14). Here a quarter reads 2 strips
  // of As and 4 of Bs: one wavefront a half-warp for each. Across the whole tile (below), or in a
  // row-major 4 x 8 grid (v13a), a quarter reads 8 strips of Bs: two.
  static constexpr int kWarpM = 4, kWarpN = 8;
  static constexpr bool kWarpGrid = kResident && kStripReads && sizeof(Scalar) == 8 &&
                                    Shape::fixed && Shape::bm % (kWarpM * TM) == 0 &&
                                    Shape::bn % (kWarpN * TN) == 0 && kTeam % 32 == 0;
  KOKKOS_INLINE_FUNCTION Place place(int t) const {
    const int threads_n = bn() / TN;
    if constexpr (kWarpGrid) {
      const int warp = t / 32, lane = t % 32, warps_n = Shape::bn / (kWarpN * TN);
      const int row = 2 * (lane / 16) + lane % 2, col = (lane / 2) % 8;
      return {(warp / warps_n) * kWarpM * TM + row * kStrip,
              (warp % warps_n) * kWarpN * TN + col * kStrip, kWarpM * kStrip, kWarpN * kStrip};
    } else if constexpr (kResident) {
      return {kStrip * (t / threads_n), kStrip * (t % threads_n), kStrip * (bm() / TM),
              kStrip * threads_n};
    } else {
      return {TM * (t / threads_n), TN * (t % threads_n), kStrip, kStrip};
    }
  }

  /// a = As[kk][my rows], b = Bs[kk][my columns]: a thread's fragments of step kk of a K block.
  KOKKOS_INLINE_FUNCTION void fragments(const Scalar* As, const Scalar* Bs, const Place& p, int kk,
                                        Scalar (&a)[TM], Scalar (&b)[TN]) const {
    const int lda = bm() + kPad, ldb = bn() + kPad;
    if constexpr (!kStripReads) {
      TILEMM_UNROLL
      for (int i = 0; i < TM; ++i)
        a[i] = As[kk * lda + (i / kStrip) * p.stride_m + p.m + i % kStrip];
      TILEMM_UNROLL
      for (int j = 0; j < TN; ++j)
        b[j] = Bs[kk * ldb + (j / kStrip) * p.stride_n + p.n + j % kStrip];
    } else {
      using Strip = Vec<Scalar, kStrip>;
      TILEMM_UNROLL
      for (int s = 0; s < TM / kStrip; ++s) {
        const auto v = *reinterpret_cast<const Strip*>(As + kk * lda + s * p.stride_m + p.m);
        TILEMM_UNROLL
        for (int i = 0; i < kStrip; ++i) a[kStrip * s + i] = v.v[i];
      }
      TILEMM_UNROLL
      for (int s = 0; s < TN / kStrip; ++s) {
        const auto v = *reinterpret_cast<const Strip*>(Bs + kk * ldb + s * p.stride_n + p.n);
        TILEMM_UNROLL
        for (int j = 0; j < kStrip; ++j) b[kStrip * s + j] = v.v[j];
      }
    }
  }
  /// acc += a (x) b. In double on a GPU every other row runs its columns backwards, so that the
  /// multiply-adds either side of a row's turn share b[j]: 1.5-3.5% faster (perf/LOG.md v11), as
  /// the second presumably takes it from the operand reuse cache; in float the same order spills.
  KOKKOS_INLINE_FUNCTION static void outer_product(Scalar (&acc)[TM][TN], const Scalar (&a)[TM],
                                                   const Scalar (&b)[TN]) {
    constexpr bool serpentine = !kOnCpu && sizeof(Scalar) == 8;
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      TILEMM_UNROLL
      for (int step = 0; step < TN; ++step) {
        const int j = serpentine && i % 2 == 1 ? TN - 1 - step : step;
        acc[i][j] += a[i] * b[j];
      }
    }
  }
  /// acc += As[kk] (x) Bs[kk]: the outer product of step kk of a K block.
  KOKKOS_INLINE_FUNCTION void multiply_step(Scalar (&acc)[TM][TN], const Scalar* As,
                                            const Scalar* Bs, const Place& p, int kk) const {
    Scalar a[TM], b[TN];
    fragments(As, Bs, p, kk, a, b);
    outer_product(acc, a, b);
  }

#ifdef TILEMM_HOST_VECTORS
  /// The outer products of one K block on a CPU core, a row of the thread tile in vector registers:
  /// per step, TN / kLanes vector loads of B and a scalar of A for each row, broadcast from
  /// scratch into that row's FMAs.
  template <bool kRowsOfA>
  void multiply_rows(Scalar (&acc)[TM][TN], const Scalar* As, const Scalar* Bs,
                     const Place& p) const {
    using V = HostVector<Scalar>;
    constexpr int kVectors = TN / kLanes;
    typename V::type rows[TM][kVectors];
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      TILEMM_UNROLL
      for (int v = 0; v < kVectors; ++v) rows[i][v] = V::load(&acc[i][kLanes * v]);
    }
    // A thread tile of the shared schedule is contiguous. Its value of A in row i at step kk:
    // a[i * along_m] with a moved by along_k a step.
    const int lda = kRowsOfA ? bk() + kPad : bm() + kPad, ldb = bn() + kPad;
    const int along_m = kRowsOfA ? lda : 1, along_k = kRowsOfA ? 1 : lda;
    const Scalar* a = As + p.m * along_m;
    const Scalar* b = Bs + p.n;
    for (int kk = 0; kk < bk(); ++kk, a += along_k, b += ldb) {
      typename V::type b_row[kVectors];
      TILEMM_UNROLL
      for (int v = 0; v < kVectors; ++v) b_row[v] = V::load(b + kLanes * v);
      TILEMM_UNROLL
      for (int i = 0; i < TM; ++i) {
        const Scalar a_i = a[i * along_m];
        TILEMM_UNROLL
        for (int v = 0; v < kVectors; ++v) rows[i][v] += a_i * b_row[v];
      }
    }
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      TILEMM_UNROLL
      for (int v = 0; v < kVectors; ++v) V::store(&acc[i][kLanes * v], rows[i][v]);
    }
  }
#endif

  /// Resident double tiles (kShares): a K block's outer products but the last step's, with the
  /// first step's fragments already in registers (a_first, b_first), and the last step's
  /// fragments read into a_last, b_last (its multiply-adds wait for the barrier: operator()).
  KOKKOS_FORCEINLINE_FUNCTION void steps_but_last(Scalar (&acc)[TM][TN], const Scalar* As,
                                                  const Scalar* Bs, const Place& p,
                                                  const Scalar (&a_first)[TM],
                                                  const Scalar (&b_first)[TN], Scalar (&a_last)[TM],
                                                  Scalar (&b_last)[TN]) const {
    outer_product(acc, a_first, b_first);
    TILEMM_UNROLL
    for (int kk = 1; kk < Shape::bk - 1; ++kk) multiply_step(acc, As, Bs, p, kk);
    fragments(As, Bs, p, Shape::bk - 1, a_last, b_last);
  }

  /// The outer products of one K block.
  KOKKOS_INLINE_FUNCTION void multiply(Scalar (&acc)[TM][TN], const Scalar* As, const Scalar* Bs,
                                       const Place& p) const {
#ifdef TILEMM_HOST_VECTORS
    if constexpr (kVectorRows) {
      return a_rows_in_scratch() ? multiply_rows<true>(acc, As, Bs, p)
                                 : multiply_rows<false>(acc, As, Bs, p);
    }
#endif
    if constexpr (Shape::fixed) {
      // Unrolled 8 steps at a time, so that scratch offsets become constants of the instructions;
      // whole 16-step blocks would take more than 128 registers (float 8x8).
      constexpr int kUnrolled = Shape::bk % 8 == 0 ? 8 : Shape::bk;
      for (int k8 = 0; k8 < Shape::bk; k8 += kUnrolled) {
        TILEMM_UNROLL
        for (int kk = 0; kk < kUnrolled; ++kk) multiply_step(acc, As, Bs, p, k8 + kk);
      }
    } else {
      for (int kk = 0; kk < BK; ++kk) multiply_step(acc, As, Bs, p, kk);
    }
  }

  /// C[thread tile at p] = alpha * acc + beta * C[...], inside the matrix only; with K split,
  /// acc as it is into the partial tile of this team's range of K.
  KOKKOS_INLINE_FUNCTION void store(const Scalar (&acc)[TM][TN], const Member& team, int row0,
                                    int col0, const Place& p) const {
    const int M = g.m(), N = g.n();
    // Found again from the team rather than kept through the K loop, where float's 8x8 thread
    // tiles have no register to spare.
    const int split = split_launch() ? team.league_rank() / tile_count : 0;
    const int local = team.league_rank() - split * tile_count;
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      const int row = row0 + p.m + (i / kStrip) * p.stride_m + i % kStrip;
      TILEMM_UNROLL
      for (int j = 0; j < TN; ++j) {
        const int col = col0 + p.n + (j / kStrip) * p.stride_n + j % kStrip;
        if (row >= M || col >= N) continue;
        if (split_launch()) {
          partials[partial_index(split, local, row - row0, col - col0)] = acc[i][j];
        } else {
          scale_into(g.c(row, col), acc[i][j], g.alpha, g.beta);
        }
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    // Teams take the launch's tiles of C for K's first range, then for its second, ...
    const int split = kWholeK ? 0 : team.league_rank() / tile_count;
    int tile_m, tile_n;
    tile_of(tile_begin + team.league_rank() - split * tile_count, tile_m, tile_n);
    const int row0 = tile_m * bm(), col0 = tile_n * bn();
    // This team's range of K, [k_begin, k_begin + K): all of it unless the launch splits K.
    const int k_begin = split * k_split;
    // (splits == 1, not !split_launch(): ptxas allocates the split kernels' registers by such
    // details, and this is the form they were measured in.)
    const int K = kWholeK || splits == 1 || g.k() - k_begin < k_split ? g.k() - k_begin : k_split;
    const int k_end = k_begin + K;
    // On a GPU the panels are always in level 0 (the launch's plan()).
    const int scratch_level = kOnCpu ? level : 0;
    void* shmem = team.team_scratch(scratch_level).get_shmem(scratch_bytes(bm(), bn(), bk()));
    char* raw = static_cast<char*>(kOnCpu ? shmem : in_level0_scratch(shmem));
    // Aligned by an offset from raw: a pointer made from an integer would hide from the compiler
    // that As is in a GPU's shared memory, and each read of it would become a generic load.
    Scalar* As = reinterpret_cast<Scalar*>(
        raw + (kAlign - reinterpret_cast<std::uintptr_t>(raw) % kAlign) % kAlign);
    Scalar* Bs = As + a_panel_size(bm(), bk());
    const int buffer_size = bk() * ((bm() + kPad) + (bn() + kPad));  // resident: two buffers

    if constexpr (kResident) {
      const int rank = team.team_rank();
      const Place p = place(rank);
      Scalar acc[TM][TN] = {};
      if constexpr (kShares) {
        Scalar stage_a[kShareA], stage_b[kShareB];
        Share a = share(op_a(), a_panel(As, row0, k_begin), rank, g.m() - row0, true);
        Share b = share(op_b(), b_panel(Bs, k_begin, col0), rank, g.n() - col0, false);
        // The first K block starts at k_first <= 0 and holds K's remainder, so that the later
        // ones are whole. The sums still run in k order, from zeros.
        const int blocks = (K + bk() - 1) / bk(), k_first = K - blocks * bk();
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
        a.src += std::ptrdiff_t(k_first + bk()) * a.k_unit;  // the second block
        b.src += std::ptrdiff_t(k_first + bk()) * b.k_unit;
        Scalar a_first[TM], b_first[TN], a_last[TM], b_last[TN];
        fragments(As, Bs, p, 0, a_first, b_first);
        // Every K block but the last loads the next one into registers, multiplies, stores the
        // next one in the other buffer, and after the barrier reads its first fragments; the last
        // block, apart, only multiplies, so that the loop holds no test of whether a next block
        // exists (1.02x in op NN: perf/LOG.md 2026-11-25). The buffers swap by an exclusive or of
        // their offsets.
        // The next block's addresses are made where ptxas schedules each kernel fastest:
        // - in the kernels compiled for op NN with pairs, right after the stores: about 1.08x over
        //   the placement below, which spilled 128x128x8/8x8 (perf/LOG.md stop 36);
        // - in the other whole-K kernels compiled for op NN, past the loop's test;
        // - in the rest before it (then past the last block, never read): 2-5% either way round
        //   (2026-11-25).
        constexpr bool kStepAfterStores = kOpsNN && kPairs;
        int current = 0, other = buffer_size;
        for (int block = 1; block < blocks; ++block) {
          load_whole(a, inside_a, stage_a);  // in flight during the multiply-adds
          load_whole(b, inside_b, stage_b);
          steps_but_last(acc, As + current, Bs + current, p, a_first, b_first, a_last, b_last);
          put(a, As + other, stage_a);  // last read before the previous barrier
          put(b, Bs + other, stage_b);
          if constexpr (kStepAfterStores) {
            a.src += a.k_step;
            b.src += b.k_step;
          }
          team.team_barrier();
          // The next block's first fragments, while the last step's multiply-adds issue.
          fragments(As + other, Bs + other, p, 0, a_first, b_first);
          outer_product(acc, a_last, b_last);
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
          steps_but_last(acc, As + current, Bs + current, p, a_first, b_first, a_last, b_last);
          outer_product(acc, a_last, b_last);
        }
      } else {
        Scalar stage_a[kStageA], stage_b[kStageB];
        const Walk walk_a = a_panel(As, row0, k_begin).walk(rank, threads(), 4);
        const Walk walk_b = b_panel(Bs, k_begin, col0).walk(rank, threads(), 4);
        bool quads_in_a =
            fetch<kEvenA>(op_a(), quads_a, a_panel(As, row0, k_begin), rank, walk_a, stage_a);
        bool quads_in_b =
            fetch<kEvenB>(op_b(), quads_b, b_panel(Bs, k_begin, col0), rank, walk_b, stage_b);
        deposit(quads_in_a, a_panel(As, row0, k_begin), rank, walk_a, stage_a);
        deposit(quads_in_b, b_panel(Bs, k_begin, col0), rank, walk_b, stage_b);
        team.team_barrier();
        for (int k0 = k_begin, buffer = 0; k0 < k_end; k0 += bk(), buffer ^= 1) {
          const bool next = k0 + bk() < k_end;
          const int current = buffer * buffer_size, other = (buffer ^ 1) * buffer_size;
          if (next) {  // global loads in flight while the thread tile is updated
            const Panel a = a_panel(As + other, row0, k0 + bk());
            const Panel b = b_panel(Bs + other, k0 + bk(), col0);
            quads_in_a = fetch<kEvenA>(op_a(), quads_a, a, rank, walk_a, stage_a);
            quads_in_b = fetch<kEvenB>(op_b(), quads_b, b, rank, walk_b, stage_b);
          }
          multiply(acc, As + current, Bs + current, p);
          if (next) {  // the other buffer was last read before the previous barrier
            // Panels made again rather than kept across the multiply: kept, they cost double 8x8
            // registers it does not have (spills, by the ptxas report).
            deposit(quads_in_a, a_panel(As + other, row0, k0 + bk()), rank, walk_a, stage_a);
            deposit(quads_in_b, b_panel(Bs + other, k0 + bk(), col0), rank, walk_b, stage_b);
          }
          team.team_barrier();
        }
      }
      store(acc, team, row0, col0, p);
    } else {
      using Block = Scalar[TM][TN];
      Block* Cs = reinterpret_cast<Block*>(Bs + bk() * (bn() + kPad));  // a block per thread tile
      const int tiles = (bm() / TM) * (bn() / TN);
      for (int t = team.team_rank(); t < tiles; t += team.team_size()) {
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j) Cs[t][i][j] = 0;
      }
      for (int k0 = k_begin; k0 < k_end; k0 += bk()) {
        load(team, op_a(), a_panel(As, row0, k0));
        load(team, op_b(), b_panel(Bs, k0, col0));
        team.team_barrier();
        for (int t = team.team_rank(); t < tiles; t += team.team_size()) {
          Scalar acc[TM][TN];
          for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j) acc[i][j] = Cs[t][i][j];
          multiply(acc, As, Bs, place(t));
          for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j) Cs[t][i][j] = acc[i][j];
        }
        team.team_barrier();
      }
      for (int t = team.team_rank(); t < tiles; t += team.team_size()) {
        store(Cs[t], team, row0, col0, place(t));
      }
    }
  }
};

}  // namespace tilemm::kernels
