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
// - shared (fewer threads than thread tiles; a team of one thread on a CPU core, as in GotoBLAS):
//   each thread tile is contiguous, so that a row of it fills vector registers, and its
//   accumulators wait in scratch (Cs) between K blocks. That costs 2 TM TN scratch accesses per
//   BK TM TN multiply-adds, so BK is large on CPUs (256) and the panels live in level-1 scratch.
//
// Teams visit the tiles of C in bands of kBand tile-rows, column by column within a band, so that
// the panels of B a band needs are still in cache when its next tile-row reads them.
#pragma once

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

  Operands g;
  int BM = 0, BN = 0, BK = 0;
  int tiles_m = 1, tiles_n = 1;
  int level = 0;  // team scratch level

  /// Team scratch for As, Bs (and Cs in the shared schedule), with room to align the base.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int bm, int bn, int bk) {
    const std::size_t panels = std::size_t(bk) * ((bm + kPad) + (bn + kPad));
    return sizeof(Scalar) * (panels + (kResident ? 0 : std::size_t(bm) * bn)) + kAlign;
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

  /// dst = op(X)[row0 : row0+rows, col0 : col0+cols] (transposed when `transpose`), zero outside
  /// the matrix; `ld` is dst's row length. The team walks the elements in the order of X's memory,
  /// thread r taking elements r, r + team_size, ...: neighbouring threads read neighbouring
  /// addresses, and the position advances by additions alone (a division per element would cost
  /// as much as the multiply-adds it feeds).
  template <class Op>
  KOKKOS_INLINE_FUNCTION static void load(const Member& team, Scalar* dst, int ld, bool transpose,
                                          const Op& x, int row0, int col0, int rows, int cols) {
    const bool along_cols = x.contiguous_along_cols();
    const int outer = along_cols ? rows : cols, inner = along_cols ? cols : rows;
    const int step = team.team_size(), step_outer = step / inner, step_inner = step % inner;
    int o = team.team_rank() / inner, in = team.team_rank() % inner;
    while (o < outer) {
      const int r = along_cols ? o : in, c = along_cols ? in : o;
      const int i = row0 + r, j = col0 + c;
      dst[transpose ? c * ld + r : r * ld + c] =
          (i < x.rows() && j < x.cols()) ? x(i, j) : Scalar(0);
      o += step_outer;
      in += step_inner;
      if (in >= inner) {
        in -= inner;
        ++o;
      }
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
    for (int i = 0; i < TM; ++i) {
      const int row = row0 + p.m + (i / 4) * p.stride_m + i % 4;
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
    const auto load_panels = [&](int k0) {
      load(team, As, lda, /*transpose=*/true, g.a, row0, k0, BM, BK);
      load(team, Bs, ldb, /*transpose=*/false, g.b, k0, col0, BK, BN);
    };

    if constexpr (kResident) {
      const Place p = place(team.team_rank());
      Scalar acc[TM][TN] = {};
      for (int k0 = 0; k0 < K; k0 += BK) {
        load_panels(k0);
        team.team_barrier();
        multiply(acc, As, Bs, p);
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
        load_panels(k0);
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
  template <class F>
  static void with_kernel(const LaunchConfig& cfg, F&& f) {
    const Tiling& t = cfg.tile;
    if (cfg.team_size == (t.bm / t.tm) * (t.bn / t.tn)) {
      with_schedule<true>(t, f);
    } else {
      with_schedule<false>(t, f);
    }
  }

  /// The default tile: the largest of the backend's candidates that still gives every processor
  /// (a CPU thread; a GPU multiprocessor, 2048 threads of Kokkos' concurrency) a tile of C.
  /// GPU: 8x8 thread tiles, one thread each (resident), 8 deep. CPU: a team of one thread (shared
  /// schedule), thread tiles one 64-byte vector wide, panels 256 deep.
  static Tiling default_tile(const Extents& e) {
    constexpr bool cpu = runs_on_cpu<ExecSpace>();
    const std::vector<Tiling> candidates =
        !cpu ? std::vector<Tiling>{{128, 128, 8, 8, 8}, {64, 64, 8, 4, 4}, {32, 32, 8, 4, 4}}
        : sizeof(Scalar) == 4
            ? std::vector<Tiling>{{128, 256, 256, 8, 16},
                                  {64, 64, 256, 8, 16},
                                  {32, 32, 256, 8, 16}}
            : std::vector<Tiling>{{128, 128, 256, 8, 8}, {64, 64, 256, 8, 8}, {32, 32, 256, 8, 8}};
    const std::int64_t processors =
        cpu ? ExecSpace().concurrency() : ExecSpace().concurrency() / 2048;
    for (const Tiling& t : candidates) {
      if (std::int64_t(ceil_div(e.m, t.bm)) * ceil_div(e.n, t.bn) >= processors) return t;
    }
    return candidates.back();
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
