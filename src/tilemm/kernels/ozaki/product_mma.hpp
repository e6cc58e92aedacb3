// ozaki, the products on the tensor cores: C_p = A_p B_p^T mod p as product.hpp computes it, with
// each warp's int8 x int8 -> int32 products done by mma.sync m16n8k32 instead of each thread's
// multiply-adds. The transformations of product.hpp's loop nest, and why:
// - A team tile of 128 x 128 and eight warps, each a 64 x 32 region of 4 x 4 fragments of 16 x 8
//   whose sums stay in registers: a byte of A read from scratch feeds the 32 columns of its
//   warp's region and a byte of B its 64 rows, where product.hpp reads two bytes from scratch
//   for each multiply-add and keeps its sums there.
// - K blocks of 64 bytes, copied 16 bytes a thread from residue lines that split.hpp pads with
//   zeros to a multiple of 16: no piece straddles the end of K, and the zeros add nothing.
// - The next K block loaded into registers while the warps multiply this one, then stored into
//   the other of two scratch buffers: one barrier a K block.
// - Scratch rows of 64 bytes whose 16-byte pieces are swizzled by bits 1 and 2 of the row (piece
//   c of row r at piece c ^ ((r / 2) % 4)): a warp's fragment loads (a word of each of 8 rows to
//   4 lanes a row) and the copies' 16-byte stores (2 rows to 8 lanes) meet no bank conflict.
//
//   each team owns a 128 x 128 tile of C_p for one modulus p, warp w a 64 x 32 region of it
//     acc = 0                                          int32, in registers
//     stage = my pieces of K block 0 of the tile's lines of A_p, B_p    zeros past M and N
//     As[0], Bs[0] = stage; team_barrier
//     for each K block i of 64:
//       stage = my pieces of block i + 1               global loads in flight during the mma
//       for kk in 0, 32:
//         a[fm] = As[i % 2](my rows, kk ..), b[fn] = Bs[i % 2](my columns, kk ..)
//         acc[fm][fn] = mma(a[fm], b[fn], acc[fm][fn])
//       after each kReduceEvery of K: acc = acc rem p
//       As[(i + 1) % 2], Bs[(i + 1) % 2] = stage; team_barrier
//     C_p[my elements inside C] = acc mod p, in [0, p)
//
// The fragments are PTX's for m16n8k32 with s8 operands: lane l (group g = l / 4, t = l % 4)
// holds A's rows g and g + 8 at bytes 4 t .. 4 t + 3 and 16 + 4 t .., B's column g at the same
// bytes of k, and C's rows g and g + 8 at columns 2 t and 2 t + 1.
#pragma once

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/ozaki/moduli.hpp"
#include "tilemm/kernels/ozaki/product.hpp"
#include "tilemm/kernels/team/tile_order.hpp"  // aligned_scratch
#include "tilemm/kernels/team_launch.hpp"
#include "tilemm/kernels/unroll.hpp"
#include "tilemm/kernels/warp/mma_fragment.hpp"  // TILEMM_TENSOR_MMA: a device pass from sm_80

#if defined(KOKKOS_ENABLE_CUDA)

namespace tilemm::kernels::ozaki {

struct MmaProducts {
  using ExecSpace = Kokkos::Cuda;
  static constexpr int BM = 128, BN = 128, BK = 64, WM = 64, WN = 32;
  static constexpr int kWarpsN = BN / WN, kLanes = 32 * (BM / WM) * kWarpsN;
  static constexpr int FM = WM / 16, FN = WN / 8;  // fragments of a warp's region
  static constexpr int kPieces = BK / 16;          // 16-byte pieces of a line's K block
  static constexpr int kStageA = BM * kPieces / kLanes, kStageB = BN * kPieces / kLanes;
  static constexpr int kBuffer = (BM + BN) * BK;  // bytes of one K block of both operands
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kLanes, 2>>;
  using Member = typename Policy::member_type;
  using Residues = ModularProducts<ExecSpace>::Residues;
  using Products = ModularProducts<ExecSpace>::Products;

  Residues a, b;  // A_p as a[(p m + i) ld + l], B_p as b[(p n + j) ld + l]
  Products c;     // C_p as c[(p m + i) n + j]
  int M = 0, N = 0, K = 0, ld = 0;
  int moduli[kMaxModuli] = {};
  int tiles_m = 1, tiles_n = 1;

  static LaunchConfig plan() {
    LaunchConfig cfg;
    cfg.tile = Tiling{BM, BN, BK};
    cfg.team_size = kLanes;
    cfg.vector_length = 1;
    cfg.scratch_bytes = 2 * kBuffer + 16;  // and what aligns it to 16 bytes
    check_team_launch(MmaProducts{}, cfg);
    return cfg;
  }

  static void run(const Residues& a, const Residues& b, const Products& c, int M, int N, int K,
                  int ld, const Garner& g, const LaunchConfig& cfg) {
    MmaProducts kernel{a, b, c, M, N, K, ld, {}, ceil_div(M, BM), ceil_div(N, BN)};
    for (int q = 0; q < g.count; ++q) kernel.moduli[q] = g.modulus[q];
    Policy policy(g.count * kernel.tiles_m * kernel.tiles_n, cfg.team_size, 1);
    Kokkos::parallel_for("tilemm::ozaki::mma_products",
                         policy.set_scratch_size(0, Kokkos::PerTeam(cfg.scratch_bytes)), kernel);
  }

  /// The byte offset in a scratch panel of piece `piece` (16 bytes) of row `row`, swizzled.
  KOKKOS_INLINE_FUNCTION static int piece_at(int row, int piece) {
    return row * BK + 16 * (piece ^ ((row >> 1) & 3));
  }
  /// Where lane `lane` of the warp whose region starts at row `row0` reads piece `piece` of its
  /// fragments' first row: a row of a fragment is row0 + g + a multiple of 8, whose swizzle is
  /// that of row0 + g, so the lane's reads are these four bytes plus constants.
  KOKKOS_INLINE_FUNCTION static int lane_piece(int row0, int lane, int piece) {
    return piece_at(row0 + lane / 4, piece) + 4 * (lane % 4);
  }
  KOKKOS_INLINE_FUNCTION static std::uint32_t word(const unsigned char* at) {
    return *reinterpret_cast<const std::uint32_t*>(at);
  }

#ifdef TILEMM_TENSOR_MMA
  /// My pieces of K block k0 of `rows` lines of x from line `line0` (of `lines` inside the
  /// matrix); zeros for lines past it and pieces past ld.
  template <int Pieces>
  KOKKOS_INLINE_FUNCTION void fetch(const Residues& x, std::int64_t line0, int lines, int k0,
                                    int rank, uint4 (&stage)[Pieces]) const {
    TILEMM_UNROLL
    for (int s = 0; s < Pieces; ++s) {
      const int q = rank + kLanes * s, row = q / kPieces, byte = k0 + 16 * (q % kPieces);
      stage[s] = make_uint4(0, 0, 0, 0);
      if (row < lines && byte < ld) {
        stage[s] = __ldg(reinterpret_cast<const uint4*>(x.data() + (line0 + row) * ld + byte));
      }
    }
  }
  template <int Pieces>
  KOKKOS_INLINE_FUNCTION static void deposit(unsigned char* panel, int rank,
                                             const uint4 (&stage)[Pieces]) {
    TILEMM_UNROLL
    for (int s = 0; s < Pieces; ++s) {
      const int q = rank + kLanes * s;
      *reinterpret_cast<uint4*>(panel + piece_at(q / kPieces, q % kPieces)) = stage[s];
    }
  }

  /// acc += the warp's products of one K block of scratch; a_at[c] and b_at[c] are where this
  /// lane reads piece c of its first fragment row of A and column of B (lane_piece).
  KOKKOS_INLINE_FUNCTION static void multiply(std::int32_t (&acc)[FM][FN][4],
                                              const unsigned char* const (&a_at)[kPieces],
                                              const unsigned char* const (&b_at)[kPieces]) {
    TILEMM_UNROLL
    for (int kk = 0; kk < kPieces; kk += 2) {
      // B's fragments for the step, then A's a fragment row at a time: fewer live registers.
      std::uint32_t fb[FN][2];
      TILEMM_UNROLL
      for (int j = 0; j < FN; ++j) {
        fb[j][0] = word(b_at[kk] + 8 * j * BK);
        fb[j][1] = word(b_at[kk + 1] + 8 * j * BK);
      }
      TILEMM_UNROLL
      for (int i = 0; i < FM; ++i) {
        const int row = 16 * i * BK;
        const std::uint32_t fa[4] = {word(a_at[kk] + row), word(a_at[kk] + row + 8 * BK),
                                     word(a_at[kk + 1] + row), word(a_at[kk + 1] + row + 8 * BK)};
        TILEMM_UNROLL
        for (int j = 0; j < FN; ++j) {
          std::int32_t* d = acc[i][j];
          asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, "
              "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
              : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
              : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[j][0]), "r"(fb[j][1]));
        }
      }
    }
  }
#endif

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
#ifdef TILEMM_TENSOR_MMA
    const int tiles = tiles_m * tiles_n;
    const int p = team.league_rank() / tiles, tile = team.league_rank() % tiles;
    const int row0 = (tile / tiles_n) * BM, col0 = (tile % tiles_n) * BN;
    const int rank = team.team_rank(), warp = rank / 32, lane = rank % 32;
    const int wm0 = (warp / kWarpsN) * WM, wn0 = (warp % kWarpsN) * WN;
    const int rows = M - row0 < BM ? M - row0 : BM, cols = N - col0 < BN ? N - col0 : BN;
    const std::int64_t line_a = std::int64_t(p) * M + row0, line_b = std::int64_t(p) * N + col0;
    unsigned char* scratch =
        aligned_scratch<unsigned char, 16, false>(team.team_scratch(0).get_shmem(2 * kBuffer + 16));

    int a_piece[kPieces], b_piece[kPieces];  // this lane's reads of each piece (lane_piece)
    TILEMM_UNROLL
    for (int c = 0; c < kPieces; ++c) {
      a_piece[c] = lane_piece(wm0, lane, c);
      b_piece[c] = lane_piece(wn0, lane, c);
    }
    std::int32_t acc[FM][FN][4] = {};
    uint4 stage_a[kStageA], stage_b[kStageB];
    fetch(a, line_a, rows, 0, rank, stage_a);
    fetch(b, line_b, cols, 0, rank, stage_b);
    deposit(scratch, rank, stage_a);
    deposit(scratch + BM * BK, rank, stage_b);
    team.team_barrier();
    // The sums are reduced after each kReduceEvery of K, outside the loop over its K blocks.
    for (int i = 0, k_reduce = 0; k_reduce < K; k_reduce += kReduceEvery) {
      const int k_end = K - k_reduce < kReduceEvery ? K : k_reduce + kReduceEvery;
      for (int k0 = k_reduce; k0 < k_end; k0 += BK, ++i) {
        const int buffer = (i % 2) * kBuffer;
        const bool next = k0 + BK < K;
        if (next) {
          fetch(a, line_a, rows, k0 + BK, rank, stage_a);
          fetch(b, line_b, cols, k0 + BK, rank, stage_b);
        }
        const unsigned char* a_at[kPieces];
        const unsigned char* b_at[kPieces];
        TILEMM_UNROLL
        for (int c = 0; c < kPieces; ++c) {
          a_at[c] = scratch + buffer + a_piece[c];
          b_at[c] = scratch + buffer + BM * BK + b_piece[c];
        }
        multiply(acc, a_at, b_at);
        if (next) {
          unsigned char* other = scratch + ((i + 1) % 2) * kBuffer;
          deposit(other, rank, stage_a);
          deposit(other + BM * BK, rank, stage_b);
        }
        team.team_barrier();
      }
      if (k_end < K) reduce(acc, moduli[p]);
    }
    store(acc, p, row0 + wm0, col0 + wn0, lane);
#else
    (void)team;
    Kokkos::abort("ozaki: this build's device code has no int8 mma.sync (sm_80 or later)");
#endif
  }

  KOKKOS_INLINE_FUNCTION static void reduce(std::int32_t (&acc)[FM][FN][4], int modulus) {
    TILEMM_UNROLL
    for (int i = 0; i < FM; ++i) {
      TILEMM_UNROLL
      for (int j = 0; j < FN; ++j) {
        TILEMM_UNROLL
        for (int e = 0; e < 4; ++e) acc[i][j][e] %= modulus;
      }
    }
  }

  /// C_p at my elements of the warp's region from (r0, c0), inside C: acc mod p in [0, p).
  KOKKOS_INLINE_FUNCTION void store(const std::int32_t (&acc)[FM][FN][4], int p, int r0, int c0,
                                    int lane) const {
    const int modulus = moduli[p];
    TILEMM_UNROLL
    for (int i = 0; i < FM; ++i) {
      TILEMM_UNROLL
      for (int j = 0; j < FN; ++j) {
        TILEMM_UNROLL
        for (int e = 0; e < 4; ++e) {
          const int row = r0 + 16 * i + lane / 4 + 8 * (e / 2);
          const int col = c0 + 8 * j + 2 * (lane % 4) + e % 2;
          if (row >= M || col >= N) continue;
          const int rest = acc[i][j][e] % modulus;
          c((std::int64_t(p) * M + row) * N + col) =
              static_cast<std::uint8_t>(rest < 0 ? rest + modulus : rest);
        }
      }
    }
  }
};

}  // namespace tilemm::kernels::ozaki

#endif  // KOKKOS_ENABLE_CUDA
