// tensor-tiled: register-tiled's team tiles (register_tiled/kernel.hpp) with the innermost product
// done by warps' matrix instructions (tensor cores) instead of each thread's multiply-adds.
//
//   each team owns a BM x BN tile of C and a range of K's blocks (all of K unless the launch
//   splits K); its warps each a WM x WN region of the tile, made of (WM / 16) x (WN / 8)
//   fragments of 16 x 8 (warp/mma_fragment.hpp):
//     acc = 0                                     a lane's elements of its warp's fragments
//     stage = my share of the range's first K block's panels of op(A), op(B)
//     As[0], Bs[0] = stage; team_barrier          each in the order it runs in memory
//     for each K block i of the range:             S = 2 buffers where they fit, else 1
//       stage = my share of block i + 1's panels   global loads in flight during the products
//       for kk < BK, step the instruction's k:
//         a[f] = load_a(As[i % S], my warp's rows, kk)     for each of its fragment rows
//         b[f] = load_b(Bs[i % S], my warp's cols, kk)     and fragment columns
//         acc[fm][fn] += mma(a[fm], b[fn])       or the plain product (Product::plain)
//       if S == 1: team_barrier                    every warp done with the one buffer
//       As[(i + 1) % S], Bs[(i + 1) % S] = stage; team_barrier
//     C[my elements] = alpha * acc + beta * C      elements outside C skipped; K split:
//                                                  partial[range][my elements] = acc
//     (K split, then a sum pass: C = alpha * (partial[0] + partial[1] + ...) + beta * C)
//
//   with S copy stages (a tile's /sS), where the tile lies inside C and op(A), op(B) lie in
//   16-byte aligned runs, copies replace the staging registers for K's whole blocks:
//     start copies of blocks 0 .. S-2 into As[0..], Bs[0..]     cp.async, a group each
//     for each whole K block i of the range:
//       wait for block i's copies; team_barrier        every warp done with block i - 1 too
//       start copies of block i + S - 1 into buffer (i + S - 1) % S   (block i - 1's buffer)
//       acc += products of buffer i % S, as above
//     the range's last, partial block (K not a multiple of BK): staged, zeros past K
//     (tiles over C's edges, unaligned operands: the staged pipeline above, in the same layout)
//
// Each operand keeps in scratch the order in which it runs in memory (warp/operand_scratch.hpp:
// rows of k, or rows of m or n), so that copies take 16-byte runs as they lie and the staged
// pipeline stores whole runs too; the launch compiles the kernel for the orientation of both
// operands (`Orient`: every op in either layout). Neighbouring threads copy neighbouring runs,
// so that a warp asks for each sector of a line once. Each order's rows are padded or swizzled so
// that a warp's fragment loads, and the copies' writes, meet no bank conflict. A float tile
// marked WarpSchedule::wide multiplies each K block of 16 by warp/wide_tf32.hpp's schedule
// instead of the warp level's k-steps (warp/block_product.hpp).
//
// A GPU runs this with a thread per lane (team size 32 x warps, vector length 1: team rank r is
// lane r % 32 of warp r / 32). A CPU team of any size, whose threads cannot exchange fragments,
// runs the same products lane by lane (the fragment's plain product), each lane's accumulators
// waiting in scratch between K blocks. A GPU runs the plain product too in the kernel compiled
// for it (Product::plain: float with K too short for split TF32 to meet FP32's bound,
// tensor_tiled/launch.hpp).
//
// Split K (epilogue/split_k.hpp, for a C of few tiles and a long K): teams take the launch's tiles
// for each range of whole K blocks (the last may be shorter), and store acc unscaled as the partial
// tile of their range; a sum pass adds the partials in range order. The tiles before the split
// ones run whole K in a launch of their own, in a kernel compiled for a whole K (KRange::whole),
// whose K loop holds no range.
//
// The panels are double-buffered where two buffers fit the level-0 scratch that Kokkos gives a
// CUDA team; deeper panels (double 128x64x16) take one buffer and a second barrier a K block, the
// next block still staged in registers during the products. The launch (tensor_tiled/launch.hpp)
// picks the tile from its table; the tile is fixed at compile time, so that the loops unroll and
// the stages have constant shares.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilemm/kernels/epilogue/split_k.hpp"
#include "tilemm/kernels/epilogue/store.hpp"
#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/team/panel.hpp"
#include "tilemm/kernels/team/staging.hpp"
#include "tilemm/kernels/team/tile_order.hpp"
#include "tilemm/kernels/team_launch.hpp"
#include "tilemm/kernels/unroll.hpp"
#include "tilemm/kernels/warp/block_product.hpp"
#include "tilemm/kernels/warp/mma_fragment.hpp"
#include "tilemm/kernels/warp/operand_scratch.hpp"
#include "tilemm/kernels/warp/wide_tf32.hpp"

namespace tilemm::kernels {

/// How a warp multiplies a K block: BlockProduct's k-steps, or float's wide schedule of 16-deep K
/// blocks (warp/wide_tf32.hpp).
enum class WarpSchedule { per_step, wide };
/// The warps' mma, or each lane's plain multiply-adds (float with a K too short for split TF32).
enum class Product { mma, plain };
/// A kernel for launches over the whole of K, or for launches that split K into ranges.
enum class KRange { whole, split };

/// A tensor-tiled team tile BM x BN x BK with warp regions WM x WN, and Stages K blocks in
/// flight by asynchronous copies (0: staged in registers only).
template <int BM, int BN, int BK, int WM, int WN, int Stages = 0,
          WarpSchedule S = WarpSchedule::per_step>
struct TensorTile {
  static constexpr int bm = BM, bn = BN, bk = BK, wm = WM, wn = WN, stages = Stages;
  static constexpr WarpSchedule schedule = S;
  static Tiling tiling() { return {BM, BN, BK, WM, WN, Stages}; }
};

/// The kernel of the pseudo-code above for one tile of the launch's table, compiled for the
/// orientation of both operands (`Orient`), for the warps' mma or the lanes' plain products (a
/// kernel of its own, so that the mma kernel's registers are its own too), and for launches over
/// the whole of K or ranges of it (CPUs compile the latter alone).
template <class ExecSpace, class Scalar, class Layout, class Tile, class Orient = OrientationKN,
          Product P = Product::mma, KRange R = KRange::whole>
struct TensorTiledGemm {
  static constexpr int BM = Tile::bm, BN = Tile::bn, BK = Tile::bk, WM = Tile::wm, WN = Tile::wn;
  /// The instruction's depth: double's deepest shape that divides BK, float's one shape.
  static constexpr int kInstK = std::is_same_v<Scalar, float> ? 8
                                : BK % 16 == 0                ? 16
                                : BK % 8 == 0                 ? 8
                                                              : 4;
  using Frag = MmaFragment<Scalar, kInstK>;
  static constexpr int FM = WM / Frag::kM, FN = WN / Frag::kN;  // fragments of a warp's region
  static constexpr int kWarpsN = BN / WN, kWarps = (BM / WM) * kWarpsN, kLanes = 32 * kWarps;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % Frag::kM == 0 && WN % Frag::kN == 0,
                "warp regions tile the team tile, fragments the warp regions");
  static_assert(BK % kInstK == 0, "the instruction's depth divides BK");
  static constexpr bool kOnCpu = runs_on_cpu<ExecSpace>();
  static constexpr int kCopies = Tile::stages;  // copy stages; 0: staged in registers only
  static constexpr Along kAlongA = Orient::a, kAlongB = Orient::b;
  /// warp/wide_tf32.hpp's loads and layouts, in float (double runs such a tile as any other).
  static constexpr bool kWideSchedule =
      Tile::schedule == WarpSchedule::wide && std::is_same_v<Scalar, float>;
  static_assert(!kWideSchedule || (BK == WideTf32::kDepth && BM % 32 == 0 && BN % 32 == 0),
                "the wide schedule takes K blocks of 16, and swizzles rows of 32 m or n or more");
  /// Rows of 8 along k stay unpadded and swizzled (warp/operand_scratch.hpp).
  static constexpr bool kSwizzledK = BK == 8;
  static constexpr int kPadK = kWideSchedule || kSwizzledK ? 0 : 4;
  static constexpr int kPadMN = kWideSchedule ? 0 : sizeof(Scalar) == 8 ? 4 : 8;
  /// The scratch layout of an operand block of `rows` (BM or BN) that runs `along` in memory;
  /// the wide schedule swizzles rows of m or n by `wide_flip` (warp/operand_scratch.hpp).
  KOKKOS_INLINE_FUNCTION static constexpr OperandScratch layout_of(Along along, int rows,
                                                                   int wide_flip) {
    constexpr bool kDouble = sizeof(Scalar) == 8;
    return along == Along::k
               ? OperandScratch{BK + kPadK, Along::k, kSwizzledK ? (kDouble ? 6 : 4) : 0,
                                kDouble ? 2 : 4}
               : OperandScratch{rows + kPadMN, Along::mn, kWideSchedule ? wide_flip : 0};
  }
  KOKKOS_INLINE_FUNCTION static constexpr OperandScratch a_layout() {
    return layout_of(kAlongA, BM, 2);
  }
  KOKKOS_INLINE_FUNCTION static constexpr OperandScratch b_layout() {
    return layout_of(kAlongB, BN, 1);
  }
  static constexpr int kAScalars = (kAlongA == Along::k ? BM : BK) * a_layout().ld;
  static constexpr int kBuffer = kAScalars + (kAlongB == Along::k ? BN : BK) * b_layout().ld;
  static constexpr int kAlign = 64;
  /// Level-0 scratch a CUDA team gets from Kokkos 4.6: 48 KiB less its reduction space.
  static constexpr std::size_t kLevel0Bytes = 40936;
  static constexpr int kStages =
      !kOnCpu && 2 * sizeof(Scalar) * kBuffer + kAlign <= kLevel0Bytes ? 2 : 1;
  // Each lane's share of a panel, staged in registers between K blocks: whole quads.
  static constexpr int kStageA = ((BM * BK + kLanes - 1) / kLanes + 3) / 4 * 4;
  static constexpr int kStageB = ((BK * BN + kLanes - 1) / kLanes + 3) / 4 * 4;
  static constexpr int kRun = 16 / sizeof(Scalar);  // scalars of a copy

  using Policy =
      Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kOnCpu ? 0 : kLanes, kOnCpu ? 0 : 1>>;
  using Member = typename Policy::member_type;
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  using Block =
      BlockProduct<Scalar, kInstK, FM, FN, BK>;  // the warp level (warp/block_product.hpp)
  using Acc = typename Block::Acc;
  using TileType = Tile;

  Operands g;
  /// op(A) and op(B) as the kernel reads them. A GPU kernel is compiled for its operands'
  /// orientation, which in its layout fixes each op (with_operands_orientation in
  /// tensor_tiled/instances.hpp): there the op is a compile-time constant, so that addresses,
  /// panel walks and copies fold into constants and additions. A CPU kernel and a GPU's plain
  /// products, compiled for one orientation whatever the ops, read them as given.
  static constexpr bool kRight = std::is_same_v<Layout, Kokkos::LayoutRight>;
  static constexpr bool kOpsGiven = kOnCpu || P == Product::plain;
  static constexpr int kOpA = kOpsGiven ? -1 : int(transposes_a(kAlongA, kRight));
  static constexpr int kOpB = kOpsGiven ? -1 : int(transposes_b(kAlongB, kRight));
  using OpA = OpView<typename Operands::const_matrix, kOpA>;
  using OpB = OpView<typename Operands::const_matrix, kOpB>;
  KOKKOS_INLINE_FUNCTION OpA op_a() const { return OpA{g.a.x, g.a.transposed}; }
  KOKKOS_INLINE_FUNCTION OpB op_b() const { return OpB{g.b.x, g.b.transposed}; }
  int tiles_m = 1, tiles_n = 1;
  bool quads_a = false, quads_b = false;  // A's, B's runs of 4 are aligned for Quad loads
  static constexpr bool kWholeK = R == KRange::whole && !kOnCpu;
  int splits = 1, k_split = 0;  // K in `splits` ranges of k_split (whole K blocks; the last less)
  Scalar* partials = nullptr;   // a partial tile per tile and range (epilogue/split_k.hpp)
  int tile_begin = 0, tile_count = 0;  // this launch's tiles, tile_count from tile_begin in order

  /// The tile's rows and columns, as epilogue/split_k.hpp's partial_offset reads a kernel's.
  KOKKOS_INLINE_FUNCTION static constexpr int bm() { return BM; }
  KOKKOS_INLINE_FUNCTION static constexpr int bn() { return BN; }
  /// Whether this launch splits K; never in a kernel compiled for launches that do not.
  KOKKOS_INLINE_FUNCTION bool split_launch() const { return !kWholeK && splits > 1; }

  /// Team scratch: kStages (or kCopies) buffers of the panels on a GPU; on a CPU one, and every
  /// lane's accumulators.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    const std::size_t panels = std::size_t(kBuffer) * sizeof(Scalar);
    const int buffers = kCopies > kStages ? kCopies : kStages;
    return (kOnCpu ? panels + sizeof(Scalar) * BM * BN : buffers * panels) + kAlign;
  }

  /// Row and column of the tile that team `rank` computes (team/tile_order.hpp).
  KOKKOS_INLINE_FUNCTION void tile_of(int rank, int& tile_m, int& tile_n) const {
    band_order(rank, tiles_m, tiles_n, tile_m, tile_n);
  }

  /// A panel in scratch: ScratchPanel's walk and rows, placed by its operand's layout, which may
  /// swizzle the rows (the A panel's where kOfA, else the B panel's).
  template <bool kOfA>
  struct Panel : ScratchPanel<Scalar> {
    KOKKOS_INLINE_FUNCTION explicit Panel(const ScratchPanel<Scalar>& p)
        : ScratchPanel<Scalar>(p) {}
    KOKKOS_INLINE_FUNCTION Scalar& at(int line, int pos) const {
      constexpr OperandScratch layout = kOfA ? a_layout() : b_layout();
      const int o = line * this->dst_line + pos * this->dst_pos;  // row ld + column, unswizzled
      return this->dst[layout.flip ? layout.place(o / layout.ld, o % layout.ld) : o];
    }
  };
  /// op(A)'s BM x BK block at (row0, k0), and op(B)'s BK x BN block at (k0, col0), in the
  /// buffer's As and Bs: transposed into scratch rows of m (A), or of n (B), where the kernel's
  /// orientation keeps them so.
  KOKKOS_INLINE_FUNCTION Panel<true> a_panel(Scalar* buffer, int row0, int k0) const {
    return Panel<true>({buffer, a_layout().ld, kAlongA == Along::mn, row0, k0, BM, BK,
                        op_a().contiguous_along_cols()});
  }
  KOKKOS_INLINE_FUNCTION Panel<false> b_panel(Scalar* buffer, int k0, int col0) const {
    return Panel<false>({buffer + kAScalars, b_layout().ld, kAlongB == Along::k, k0, col0, BK, BN,
                         op_b().contiguous_along_cols()});
  }

  /// A thread's share of panel p into registers, and from registers into scratch
  /// (team/staging.hpp).
  template <int N, class Op, class Panel>
  KOKKOS_INLINE_FUNCTION static bool fetch(const Op& x, bool aligned, const Panel& p, int rank,
                                           const PanelWalk& quads, Scalar (&stage)[N]) {
    return fetch_share<kLanes>(x, aligned, p, rank, quads, stage);
  }
  template <int N, class Panel>
  KOKKOS_INLINE_FUNCTION static void deposit(bool quads, const Panel& p, int rank,
                                             const PanelWalk& quad_walk, const Scalar (&stage)[N]) {
    deposit_share<kLanes>(quads, p, rank, quad_walk, stage);
  }

  /// acc += the products of one K block for lane `lane` of warp `warp`: a warp's mma where the
  /// device has it and the launch wants it, else the lane's plain product.
  KOKKOS_INLINE_FUNCTION static void multiply(Acc& acc, const Scalar* As, const Scalar* Bs,
                                              int warp, int lane) {
    const int wm0 = (warp / kWarpsN) * WM, wn0 = (warp % kWarpsN) * WN;
#ifdef TILEMM_TENSOR_MMA
    if constexpr (wide_mma()) {
      WideTf32::block<kAlongA, kAlongB>(acc, As, a_layout(), Bs, b_layout(), wm0, wn0, lane);
      return;
    } else if constexpr (!kOnCpu && P == Product::mma) {
      Block::mma(acc, As, a_layout(), Bs, b_layout(), wm0, wn0, lane);
      return;
    }
#endif
    Block::plain(acc, As, a_layout(), Bs, b_layout(), wm0, wn0, lane);
  }

  /// Whether this pass multiplies by the wide schedule, whose fragments interleave the rows or
  /// columns of an operand that runs along m or n (warp/wide_tf32.hpp).
  KOKKOS_INLINE_FUNCTION static constexpr bool wide_mma() {
#ifdef TILEMM_TENSOR_MMA
    return !kOnCpu && P == Product::mma && kWideSchedule;
#else
    return false;
#endif
  }
  /// Where a lane's element e of fragment (i, j) lies in its warp's region.
  KOKKOS_INLINE_FUNCTION static constexpr int c_row(int i, int lane, int e) {
    return wide_mma() ? WideTf32::c_row<kAlongA>(i, lane, e) : Frag::kM * i + Frag::c_row(lane, e);
  }
  KOKKOS_INLINE_FUNCTION static constexpr int c_col(int j, int lane, int e) {
    return wide_mma() ? WideTf32::c_col<kAlongB>(j, lane, e) : Frag::kN * j + Frag::c_col(lane, e);
  }

  /// C = alpha * acc + beta * C at lane `lane` of warp `warp`'s elements, inside C only; with K
  /// split, acc as it is into the partial tile of this team's range of K.
  KOKKOS_INLINE_FUNCTION void store(const Acc& acc, const Member& team, int row0, int col0,
                                    int warp, int lane) const {
    const int wm0 = row0 + (warp / kWarpsN) * WM, wn0 = col0 + (warp % kWarpsN) * WN;
    // Found again from the team rather than kept through the K loop.
    const int split = split_launch() ? team.league_rank() / tile_count : 0;
    const int local = team.league_rank() - split * tile_count;
    TILEMM_UNROLL
    for (int i = 0; i < FM; ++i) {
      TILEMM_UNROLL
      for (int j = 0; j < FN; ++j) {
        TILEMM_UNROLL
        for (int e = 0; e < Frag::kC; ++e) {
          const int row = wm0 + c_row(i, lane, e), col = wn0 + c_col(j, lane, e);
          if (row >= g.m() || col >= g.n()) continue;
          store_element<Layout>(*this, split, local, row0, col0, row, col, acc[i][j][e]);
        }
      }
    }
  }

  /// The pipeline of the pseudo-code over the team's range of K, a thread a lane.
  KOKKOS_INLINE_FUNCTION void pipelined(const Member& team, int row0, int col0,
                                        Scalar* buffers) const {
    const int rank = team.team_rank();
    int k_begin, k_end;
    k_range(team, k_begin, k_end);
    Acc acc = {};
    Scalar stage_a[kStageA], stage_b[kStageB];
    const PanelWalk walk_a = a_panel(buffers, row0, 0).walk(rank, kLanes, 4);
    const PanelWalk walk_b = b_panel(buffers, 0, col0).walk(rank, kLanes, 4);
    bool quads_in_a =
        fetch(op_a(), quads_a, a_panel(buffers, row0, k_begin), rank, walk_a, stage_a);
    bool quads_in_b =
        fetch(op_b(), quads_b, b_panel(buffers, k_begin, col0), rank, walk_b, stage_b);
    deposit(quads_in_a, a_panel(buffers, row0, k_begin), rank, walk_a, stage_a);
    deposit(quads_in_b, b_panel(buffers, k_begin, col0), rank, walk_b, stage_b);
    team.team_barrier();
    for (int k0 = k_begin, buffer = 0; k0 < k_end; k0 += BK, buffer = (buffer + 1) % kStages) {
      const bool next = k0 + BK < k_end;
      Scalar* current = buffers + buffer * kBuffer;
      Scalar* other = buffers + (buffer + 1) % kStages * kBuffer;
      if (next) {  // global loads in flight during the products
        quads_in_a = fetch(op_a(), quads_a, a_panel(other, row0, k0 + BK), rank, walk_a, stage_a);
        quads_in_b = fetch(op_b(), quads_b, b_panel(other, k0 + BK, col0), rank, walk_b, stage_b);
      }
      multiply(acc, current, current + kAScalars, rank / 32, rank % 32);
      if (next) {  // the other buffer was last read before the previous barrier
        if constexpr (kStages == 1) team.team_barrier();  // one buffer: every warp done with it
        deposit(quads_in_a, a_panel(other, row0, k0 + BK), rank, walk_a, stage_a);
        deposit(quads_in_b, b_panel(other, k0 + BK, col0), rank, walk_b, stage_b);
      }
      team.team_barrier();
    }
    store(acc, team, row0, col0, rank / 32, rank % 32);
  }

  /// Whether the team's tile copies its panels as they lie (the pseudo-code's copy stages): the
  /// tile inside C, op(A) and op(B) in aligned runs along the scratch rows.
  KOKKOS_INLINE_FUNCTION bool copies_as_they_lie(int row0, int col0, Scalar* buffers) const {
    return quads_a && quads_b && row0 + BM <= g.m() && col0 + BN <= g.n() &&
           a_panel(buffers, row0, 0).dst_along_lines() &&
           b_panel(buffers, 0, col0).dst_along_lines();
  }
  /// A thread's copies of a K block's panels (team/staging.hpp): the A panel's lines run along
  /// k or m, the B panel's along n or k, as the operands do in memory, in runs of kRun scalars.
  using RunsA = CopyRuns<kLanes, (kAlongA == Along::k ? BK : BM) / kRun, BM * BK / kLanes / kRun>;
  using RunsB = CopyRuns<kLanes, (kAlongB == Along::mn ? BN : BK) / kRun, BK * BN / kLanes / kRun>;
  /// Starts the copies of a thread's runs r of panel p.
  template <class Runs, class Op, class Panel>
  KOKKOS_INLINE_FUNCTION static void copy(const Op& x, const Panel& p, const Runs& r) {
    copy_runs<Scalar>(x, p, r);
  }
  /// The copy-stage pipeline of the pseudo-code over K's range [k_begin, k_end), a thread a lane:
  /// its whole K blocks copied, its last, partial one (if any) loaded element by element.
  KOKKOS_INLINE_FUNCTION void copied(const Member& team, int row0, int col0,
                                     Scalar* buffers) const {
    static_assert(kCopies >= 2, "copies keep two or more K blocks in flight");
    static_assert((BM * BK) % (kLanes * kRun) == 0 && (BK * BN) % (kLanes * kRun) == 0,
                  "every thread copies as many runs of each panel");
    int k_begin, k_end;
    k_range(team, k_begin, k_end);
    const int rank = team.team_rank(), first = k_begin / BK, blocks = (k_end - k_begin) / BK;
    const RunsA runs_a(rank);
    const RunsB runs_b(rank);
    const auto start = [&](int block) {  // an empty group past the last block keeps the count
      Scalar* buffer = buffers + block % kCopies * kBuffer;
      if (block < blocks) {
        copy(op_a(), a_panel(buffer, row0, (first + block) * BK), runs_a);
        copy(op_b(), b_panel(buffer, (first + block) * BK, col0), runs_b);
      }
      async_commit();
    };
    for (int block = 0; block < kCopies - 1; ++block) start(block);
    Acc acc = {};
    for (int i = 0; i < blocks; ++i) {
      async_wait<kCopies - 2>();  // this thread's copies of block i are in
      team.team_barrier();        // everyone's are, and every warp is done with block i - 1
      start(i + kCopies - 1);
      const Scalar* current = buffers + i % kCopies * kBuffer;
      multiply(acc, current, current + kAScalars, rank / 32, rank % 32);
    }
    if (first * BK + blocks * BK < k_end) {  // K's last, partial block, zeros past K
      team.team_barrier();  // every warp done with the whole blocks (their copies are all in)
      load_elements(rank, kLanes, buffers, row0, col0, (first + blocks) * BK);
      team.team_barrier();
      multiply(acc, buffers, buffers + kAScalars, rank / 32, rank % 32);
    }
    store(acc, team, row0, col0, rank / 32, rank % 32);
  }

  /// The panels of the K block at k0 into `buffer`, an element a thread at a time (thread `rank`
  /// of `size`), zeros outside op(A) and op(B).
  KOKKOS_INLINE_FUNCTION void load_elements(int rank, int size, Scalar* buffer, int row0, int col0,
                                            int k0) const {
    const auto a = a_panel(buffer, row0, k0);
    const auto b = b_panel(buffer, k0, col0);
    for (PanelWalk w = a.walk(rank, size, 1); w.more(); w.next())
      a.at(w.line, w.pos()) = a.value(op_a(), w.line, w.pos());
    for (PanelWalk w = b.walk(rank, size, 1); w.more(); w.next())
      b.at(w.line, w.pos()) = b.value(op_b(), w.line, w.pos());
  }
  /// A CPU team: the team loads each K block's panels, then its threads take the lanes in turn,
  /// each lane's accumulators kept in scratch (Cs) between K blocks.
  KOKKOS_INLINE_FUNCTION void lane_by_lane(const Member& team, int row0, int col0,
                                           Scalar* buffer) const {
    const int rank = team.team_rank(), size = team.team_size();
    int k_begin, k_end;
    k_range(team, k_begin, k_end);
    Acc* Cs = reinterpret_cast<Acc*>(buffer + kBuffer);
    for (int l = rank; l < kLanes; l += size) {
      for (int i = 0; i < FM; ++i)
        for (int j = 0; j < FN; ++j)
          for (int e = 0; e < Frag::kC; ++e) Cs[l][i][j][e] = 0;
    }
    for (int k0 = k_begin; k0 < k_end; k0 += BK) {
      load_elements(rank, size, buffer, row0, col0, k0);
      team.team_barrier();
      for (int l = rank; l < kLanes; l += size)
        multiply(Cs[l], buffer, buffer + kAScalars, l / 32, l % 32);
      team.team_barrier();
    }
    for (int l = rank; l < kLanes; l += size) store(Cs[l], team, row0, col0, l / 32, l % 32);
  }

  /// This team's range of K, [k_begin, k_end): all of K unless the launch splits K. Teams take
  /// the launch's tiles for K's first range, then for its second, ... (Found where a schedule
  /// starts rather than kept from the team's start: held through the tile's setup, K took the
  /// copy-stage kernels two more registers.)
  KOKKOS_INLINE_FUNCTION void k_range(const Member& team, int& k_begin, int& k_end) const {
    const int split = kWholeK ? 0 : team.league_rank() / tile_count;
    k_begin = split * k_split;
    k_end = kWholeK || splits == 1 || g.k() - k_begin < k_split ? g.k() : k_begin + k_split;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    // This team's tile of C: the launch's tiles in order, for each range of K.
    const int split = kWholeK ? 0 : team.league_rank() / tile_count;
    int tile_m, tile_n;
    tile_of(kWholeK ? team.league_rank() : tile_begin + team.league_rank() - split * tile_count,
            tile_m, tile_n);
    const int row0 = tile_m * BM, col0 = tile_n * BN;
    void* shmem = team.team_scratch(kOnCpu ? 1 : 0).get_shmem(scratch_bytes());
    Scalar* buffers = aligned_scratch<Scalar, kAlign, kOnCpu>(shmem);
    if constexpr (kOnCpu) {
      lane_by_lane(team, row0, col0, buffers);
    } else if constexpr (kCopies > 0) {
      if (copies_as_they_lie(row0, col0, buffers)) {
        copied(team, row0, col0, buffers);
      } else {
        pipelined(team, row0, col0, buffers);
      }
    } else {
      pipelined(team, row0, col0, buffers);
    }
  }
};

}  // namespace tilemm::kernels
