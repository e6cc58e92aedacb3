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
//           regA[TM] = As[kk][my rows]           4-wide reads from scratch
//           regB[TN] = Bs[kk][my cols]
//           acc += regA (x) regB                  TM * TN multiply-adds from registers
//       team_barrier
//     C[my thread tiles] = alpha * acc + beta * C   elements outside C skipped
//
// Two schedules of that one source, chosen by the launch's team size:
// - resident (team size = number of thread tiles; the GPU launch): acc stays in registers for the
//   whole K loop. A thread's rows are strips of 4 spaced 4 (BM/TM) apart (its columns likewise),
//   so that neighbouring threads read neighbouring 16-byte words of scratch: no bank conflicts.
//   The panels are double-buffered: each thread fetches its share of the next K block into
//   registers before it multiplies the current one, so the loads are in flight during the
//   multiply-adds, and stores them to the other buffer after: one team_barrier per K block.
// - shared (fewer threads than thread tiles, or shares too large to stage in registers; a team of
//   one thread on a CPU core, as in GotoBLAS): each thread tile is contiguous, so that a row of it
//   fills vector registers, and its accumulators wait in scratch (Cs) between K blocks. That costs
//   2 TM TN scratch accesses per BK TM TN multiply-adds, so BK is large on CPUs (256) and the
//   panels live in level-1 scratch.
//
// Teams visit the tiles of C in bands of kBand tile-rows, column by column within a band, so that
// the panels of B a band needs are still in cache when its next tile-row reads them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/team_launch.hpp"
#include "tilemm/kernels/unroll.hpp"

namespace tilemm::kernels {

/// Four consecutive scalars, aligned so that one load instruction reads them.
template <class Scalar>
struct alignas(4 * sizeof(Scalar)) Quad {
  Scalar v[4];
};

template <class ExecSpace, class Scalar, class Layout, int TM, int TN, bool kResident>
struct RegisterTiledGemm {
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 blocks");
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  static constexpr int kPad = 4;     // scalars added to each scratch row: no bank conflicts on the
                                     // transposed store, and rows stay 4-aligned for Quad reads
  static constexpr int kBand = 8;    // tile-rows per band of the tile order
  static constexpr int kAlign = 64;  // bytes: the scratch base is rounded up to this
  static constexpr int kStage = 8;   // resident: most elements of a panel one thread stages

  Operands g;
  int BM = 0, BN = 0, BK = 0;
  int tiles_m = 1, tiles_n = 1;
  int level = 0;  // team scratch level

  /// Team scratch: As and Bs twice (resident: double-buffered), or once with Cs (shared), and room
  /// to align the base.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int bm, int bn, int bk) {
    const std::size_t panels = std::size_t(bk) * ((bm + kPad) + (bn + kPad));
    return sizeof(Scalar) * (kResident ? 2 * panels : panels + std::size_t(bm) * bn) + kAlign;
  }

  /// Whether each of `team` threads can stage its share of both panels in kStage registers.
  static bool shares_fit(int bm, int bn, int bk, int team) {
    return ceil_div(std::int64_t(bm) * bk, team) <= kStage &&
           ceil_div(std::int64_t(bk) * bn, team) <= kStage;
  }

  static void run(const Operands& g, const LaunchConfig& cfg) {
    const Tiling& t = cfg.tile;
    RegisterTiledGemm kernel{
        g, t.bm, t.bn, t.bk, ceil_div(g.m(), t.bm), ceil_div(g.n(), t.bn), cfg.scratch_level};
    Policy policy(kernel.tiles_m * kernel.tiles_n, cfg.team_size, cfg.vector_length);
    Kokkos::parallel_for(
        "tilemm::register_tiled",
        policy.set_scratch_size(cfg.scratch_level, Kokkos::PerTeam(cfg.scratch_bytes)), kernel);
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

  /// A thread's walk over a rows x cols panel of op(X) in the order of X's memory: elements r,
  /// r + team_size, r + 2 team_size, ... for thread r, so that neighbouring threads read
  /// neighbouring addresses. It advances by additions alone: a division per element would cost as
  /// much as the multiply-adds the element feeds.
  struct Walk {
    bool along_cols;
    int outer, inner, step_outer, step_inner, o, in;

    template <class Op>
    KOKKOS_INLINE_FUNCTION Walk(const Member& team, const Op& x, int rows, int cols)
        : along_cols(x.contiguous_along_cols()),
          outer(along_cols ? rows : cols),
          inner(along_cols ? cols : rows),
          step_outer(team.team_size() / inner),
          step_inner(team.team_size() % inner),
          o(team.team_rank() / inner),
          in(team.team_rank() % inner) {}
    KOKKOS_INLINE_FUNCTION bool more() const { return o < outer; }
    KOKKOS_INLINE_FUNCTION int row() const { return along_cols ? o : in; }
    KOKKOS_INLINE_FUNCTION int col() const { return along_cols ? in : o; }
    KOKKOS_INLINE_FUNCTION void next() {
      o += step_outer;
      in += step_inner;
      if (in >= inner) {
        in -= inner;
        ++o;
      }
    }
  };

  /// op(X)(i, j), or zero outside the matrix.
  template <class Op>
  KOKKOS_INLINE_FUNCTION static Scalar value(const Op& x, int i, int j) {
    return (i < x.rows() && j < x.cols()) ? x(i, j) : Scalar(0);
  }

  /// A panel = op(X)[row0 : row0+rows, col0 : col0+cols], written to scratch at `dst` with rows of
  /// length `ld`, transposed when `transpose` (the A panel, so that a column of it is contiguous).
  struct Panel {
    Scalar* dst;
    int ld;
    bool transpose;
    int row0, col0, rows, cols;
    KOKKOS_INLINE_FUNCTION Scalar& at(int r, int c) const {
      return dst[transpose ? c * ld + r : r * ld + c];
    }
  };

  /// The whole team copies the panel, zero outside the matrix (shared schedule).
  template <class Op>
  KOKKOS_INLINE_FUNCTION static void load(const Member& team, const Op& x, const Panel& p) {
    for (Walk w(team, x, p.rows, p.cols); w.more(); w.next()) {
      p.at(w.row(), w.col()) = value(x, p.row0 + w.row(), p.col0 + w.col());
    }
  }

  /// This thread's share of the panel into registers (resident schedule; plan() checked that it
  /// has at most kStage elements)...
  template <class Op>
  KOKKOS_INLINE_FUNCTION static void fetch(const Member& team, const Op& x, const Panel& p,
                                           Scalar (&stage)[kStage]) {
    Walk w(team, x, p.rows, p.cols);
    TILEMM_UNROLL
    for (int s = 0; s < kStage; ++s, w.next()) {
      if (w.more()) stage[s] = value(x, p.row0 + w.row(), p.col0 + w.col());
    }
  }

  /// ... and from registers to scratch, by the same walk. (A walk made once before the K loop
  /// would save its divisions, but then the compiler keeps every element's position in registers
  /// for the whole loop: 128 -> 228 registers a thread for float 8x8, half the teams in flight.)
  template <class Op>
  KOKKOS_INLINE_FUNCTION static void deposit(const Member& team, const Op& x, const Panel& p,
                                             const Scalar (&stage)[kStage]) {
    Walk w(team, x, p.rows, p.cols);
    TILEMM_UNROLL
    for (int s = 0; s < kStage; ++s, w.next()) {
      if (w.more()) p.at(w.row(), w.col()) = stage[s];
    }
  }

  /// Where thread tile t lies in the team's tile: its first row and column, and the distance
  /// between its 4-wide strips (resident: interleaved with the other threads; shared: contiguous).
  struct Place {
    int m, n, stride_m, stride_n;
  };
  KOKKOS_INLINE_FUNCTION Place place(int t) const {
    const int threads_n = BN / TN;
    if constexpr (kResident) {
      return {4 * (t / threads_n), 4 * (t % threads_n), 4 * (BM / TM), 4 * (BN / TN)};
    } else {
      return {TM * (t / threads_n), TN * (t % threads_n), 4, 4};
    }
  }

  /// acc += As[kk] (x) Bs[kk] for kk < BK: the outer products of one K block.
  KOKKOS_INLINE_FUNCTION void multiply(Scalar (&acc)[TM][TN], const Scalar* As, const Scalar* Bs,
                                       const Place& p) const {
    const int lda = BM + kPad, ldb = BN + kPad;
    for (int kk = 0; kk < BK; ++kk) {
      Scalar a[TM], b[TN];
      TILEMM_UNROLL
      for (int s = 0; s < TM / 4; ++s) {
        const auto q = *reinterpret_cast<const Quad<Scalar>*>(As + kk * lda + s * p.stride_m + p.m);
        TILEMM_UNROLL
        for (int i = 0; i < 4; ++i) a[4 * s + i] = q.v[i];
      }
      TILEMM_UNROLL
      for (int s = 0; s < TN / 4; ++s) {
        const auto q = *reinterpret_cast<const Quad<Scalar>*>(Bs + kk * ldb + s * p.stride_n + p.n);
        TILEMM_UNROLL
        for (int j = 0; j < 4; ++j) b[4 * s + j] = q.v[j];
      }
      TILEMM_UNROLL
      for (int i = 0; i < TM; ++i) {
        TILEMM_UNROLL
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
      }
    }
  }

  /// C[thread tile at p] = alpha * acc + beta * C[...], inside the matrix only.
  KOKKOS_INLINE_FUNCTION void store(const Scalar (&acc)[TM][TN], int row0, int col0,
                                    const Place& p) const {
    const int M = g.m(), N = g.n();
    TILEMM_UNROLL
    for (int i = 0; i < TM; ++i) {
      const int row = row0 + p.m + (i / 4) * p.stride_m + i % 4;
      TILEMM_UNROLL
      for (int j = 0; j < TN; ++j) {
        const int col = col0 + p.n + (j / 4) * p.stride_n + j % 4;
        if (row < M && col < N) scale_into(g.c(row, col), acc[i][j], g.alpha, g.beta);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    int tile_m, tile_n;
    tile_of(team.league_rank(), tile_m, tile_n);
    const int row0 = tile_m * BM, col0 = tile_n * BN, K = g.k();
    const int lda = BM + kPad, ldb = BN + kPad;
    char* raw = static_cast<char*>(team.team_scratch(level).get_shmem(scratch_bytes(BM, BN, BK)));
    Scalar* As = reinterpret_cast<Scalar*>((reinterpret_cast<std::uintptr_t>(raw) + kAlign - 1) &
                                           ~std::uintptr_t(kAlign - 1));
    Scalar* Bs = As + BK * lda;
    // The panels of the K block at k0, in buffer `buffer` (resident: 0 or 1; shared: 0).
    const int buffer_size = BK * (lda + ldb);
    const auto a_panel = [&](int k0, int buffer) {
      return Panel{As + buffer * buffer_size, lda, true, row0, k0, BM, BK};
    };
    const auto b_panel = [&](int k0, int buffer) {
      return Panel{Bs + buffer * buffer_size, ldb, false, k0, col0, BK, BN};
    };

    if constexpr (kResident) {
      const Place p = place(team.team_rank());
      Scalar acc[TM][TN] = {};
      Scalar stage_a[kStage], stage_b[kStage];
      fetch(team, g.a, a_panel(0, 0), stage_a);
      fetch(team, g.b, b_panel(0, 0), stage_b);
      deposit(team, g.a, a_panel(0, 0), stage_a);
      deposit(team, g.b, b_panel(0, 0), stage_b);
      team.team_barrier();
      for (int k0 = 0, buffer = 0; k0 < K; k0 += BK, buffer ^= 1) {
        const bool next = k0 + BK < K;
        if (next) {  // global loads in flight while the thread tile is updated
          fetch(team, g.a, a_panel(k0 + BK, buffer ^ 1), stage_a);
          fetch(team, g.b, b_panel(k0 + BK, buffer ^ 1), stage_b);
        }
        multiply(acc, As + buffer * buffer_size, Bs + buffer * buffer_size, p);
        if (next) {  // the other buffer was last read before the previous barrier
          deposit(team, g.a, a_panel(k0 + BK, buffer ^ 1), stage_a);
          deposit(team, g.b, b_panel(k0 + BK, buffer ^ 1), stage_b);
        }
        team.team_barrier();
      }
      store(acc, row0, col0, p);
    } else {
      using Block = Scalar[TM][TN];
      Block* Cs = reinterpret_cast<Block*>(Bs + BK * ldb);  // one TM x TN block per thread tile
      const int tiles = (BM / TM) * (BN / TN);
      for (int t = team.team_rank(); t < tiles; t += team.team_size()) {
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j) Cs[t][i][j] = 0;
      }
      for (int k0 = 0; k0 < K; k0 += BK) {
        load(team, g.a, a_panel(k0, 0));
        load(team, g.b, b_panel(k0, 0));
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
        store(Cs[t], row0, col0, place(t));
      }
    }
  }
};

/// The launch of the register-tiled kernel: its defaults per backend and precision, its limits,
/// and the thread tiles (TM x TN) compiled in.
template <class ExecSpace, class Scalar, class Layout>
struct RegisterTiled {
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;

  /// Calls f(kernel) with the kernel type of the launch's thread tile and schedule; throws
  /// LaunchError for a thread tile that is not compiled in.
  template <bool kResident, class F>
  static void with_schedule(const Tiling& t, F&& f) {
    if (t.tm == 4 && t.tn == 4) {
      f(RegisterTiledGemm<ExecSpace, Scalar, Layout, 4, 4, kResident>{});
    } else if (t.tm == 8 && t.tn == 8) {
      f(RegisterTiledGemm<ExecSpace, Scalar, Layout, 8, 8, kResident>{});
    } else if (t.tm == 8 && t.tn == 16) {
      f(RegisterTiledGemm<ExecSpace, Scalar, Layout, 8, 16, kResident>{});
    } else {
      throw LaunchError("tile", "tile " + t.to_string() +
                                    ": the register-tiled kernel has thread tiles 4x4, 8x8, 8x16");
    }
  }
  /// The resident schedule when the team has one thread per thread tile and each thread can stage
  /// its share of the panels in registers; the shared schedule otherwise.
  template <class F>
  static void with_kernel(const LaunchConfig& cfg, F&& f) {
    using Resident = RegisterTiledGemm<ExecSpace, Scalar, Layout, 4, 4, true>;
    const Tiling& t = cfg.tile;
    if (cfg.team_size == (t.bm / t.tm) * (t.bn / t.tn) &&
        Resident::shares_fit(t.bm, t.bn, t.bk, cfg.team_size)) {
      with_schedule<true>(t, f);
    } else {
      with_schedule<false>(t, f);
    }
  }

  /// The default tile: the largest of the backend's candidates that still gives every processor
  /// (a CPU thread; a GPU multiprocessor, 2048 threads of Kokkos' concurrency) a tile of C, no
  /// deeper than K rounded up to 8.
  /// GPU: 8x8 thread tiles, one thread each (resident), 8 deep. CPU: a team of one thread (shared
  /// schedule), thread tiles one 64-byte vector wide, panels 256 deep.
  static Tiling default_tile(const Extents& e) {
    constexpr bool cpu = runs_on_cpu<ExecSpace>();
    const std::vector<Tiling> candidates =
        !cpu
            ? (sizeof(Scalar) == 4
                   ? std::vector<Tiling>{{128, 128, 16, 8, 8},
                                         {64, 64, 16, 4, 4},
                                         {32, 32, 8, 4, 4}}
                   : std::vector<Tiling>{{128, 64, 8, 8, 8}, {64, 64, 16, 4, 4}, {32, 32, 8, 4, 4}})
        : sizeof(Scalar) == 4
            ? std::vector<Tiling>{{128, 256, 256, 8, 16},
                                  {64, 64, 256, 8, 16},
                                  {32, 32, 256, 8, 16}}
            : std::vector<Tiling>{{128, 128, 256, 8, 8}, {64, 64, 256, 8, 8}, {32, 32, 256, 8, 8}};
    const std::int64_t processors =
        cpu ? ExecSpace().concurrency() : ExecSpace().concurrency() / 2048;
    Tiling chosen = candidates.back();
    for (const Tiling& t : candidates) {
      if (std::int64_t(ceil_div(e.m, t.bm)) * ceil_div(e.n, t.bn) >= processors) {
        chosen = t;
        break;
      }
    }
    // Panels deeper than K would multiply zeros: with K = 64, a 256-deep panel is 3/4 padding.
    if (e.k > 0) chosen.bk = static_cast<int>(std::min<std::int64_t>(chosen.bk, (e.k + 7) / 8 * 8));
    return chosen;
  }

  static LaunchConfig plan(const LaunchRequest& request, const Extents& extents) {
    LaunchConfig cfg;
    cfg.tile = request.tile.value_or(default_tile(extents));
    const Tiling& t = cfg.tile;
    if (!t.has_thread_tile()) {
      throw LaunchError("tile", "tile " + t.to_string() +
                                    ": the register-tiled kernel takes BMxBNxBK/TMxTN, such as " +
                                    default_tile(extents).to_string());
    }
    const int thread_tiles = (t.bm / t.tm) * (t.bn / t.tn);
    cfg.vector_length = 1;
    cfg.team_size =
        request.team_size ? request.team_size : (runs_on_cpu<ExecSpace>() ? 1 : thread_tiles);
    if (thread_tiles % cfg.team_size != 0) {
      throw LaunchError("team_size", "team size " + std::to_string(cfg.team_size) +
                                         " does not divide the " + std::to_string(thread_tiles) +
                                         " thread tiles of tile " + t.to_string());
    }
    with_kernel(cfg, [&](auto kernel) {
      using Kernel = decltype(kernel);
      cfg.scratch_bytes = Kernel::scratch_bytes(t.bm, t.bn, t.bk);
      // A CPU's caches serve large panels as well as its level 0 would; a GPU's level 1 is main
      // memory, so there the panels must fit level 0.
      const bool fits_level0 =
          cfg.scratch_bytes <= std::size_t(Kernel::Policy::scratch_size_max(0));
      cfg.scratch_level = (!fits_level0 && runs_on_cpu<ExecSpace>()) ? 1 : 0;
      check_team_launch(kernel, cfg);
    });
    return cfg;
  }

  static void run(const Operands& g, const LaunchConfig& cfg) {
    with_kernel(cfg, [&](auto kernel) { decltype(kernel)::run(g, cfg); });
  }
};

}  // namespace tilemm::kernels
