// tensor-tiled's scratch on the host (tensor_tiled/kernel.hpp): the GPU schedule's staging and
// copies of the panels, emulated rank by rank, in every op, layout and scratch layout; whether the
// plan and the kernel agree on where the copies engage; and the shared-memory bank conflicts of a
// warp's fragment loads and copies, its 32 lanes enumerated by CUDA's bank model. (Kokkos is
// initialized by test_fragments.cpp's environment, in the same executable.)
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "tilemm/kernels/tensor_tiled/kernel.hpp"
#include "tilemm/kernels/tensor_tiled/launch.hpp"

namespace tilemm::test {
namespace {

constexpr int kLanes = 32;

/// The GPU schedule's staging (tensor_tiled/kernel.hpp, pipelined): each of the team's ranks
/// fetches its share of a panel into registers and deposits it into scratch; together they must
/// write the whole panel, op(X)'s block with zeros outside op(X), in every op and layout, for
/// panels inside and over the edges of a matrix that divides no tile, read 4 neighbours a load
/// (`aligned`) or one. Where a panel lies inside op(X) along the scratch rows, the copy stages'
/// copies must write the same panel. As is read by the kernel's layout of it (As[k][m], or As[m][k]
/// swizzled).
template <class Scalar, class Tile, class Layout>
void check_staging(bool transposed_a, bool transposed_b, bool aligned) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Kernel = kernels::TensorTiledGemm<Space, Scalar, Layout, Tile>;
  using Matrix = typename Kernel::Operands::matrix;
  const int M = 152, N = 140, K = 20;  // runs of 4 aligned, and no tile divides them
  const Matrix A("A", transposed_a ? K : M, transposed_a ? M : K);
  const Matrix B("B", transposed_b ? N : K, transposed_b ? K : N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < K; ++j) (transposed_a ? A(j, i) : A(i, j)) = 1 + i + 1000 * j;
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < N; ++j) (transposed_b ? B(j, i) : B(i, j)) = 2 + i + 1000 * j;
  Kernel k{};
  k.g.a = {A, transposed_a};
  k.g.b = {B, transposed_b};
  k.g.c = Matrix("C", M, N);
  ASSERT_TRUE(k.g.a.runs_aligned(4) && k.g.b.runs_aligned(4));
  std::vector<Scalar> buffer(Kernel::kBuffer);
  const auto expect_panel = [&](const char* how, bool of_a, int row0, int col0, int k0) {
    for (int kk = 0; kk < Kernel::BK; ++kk) {
      for (int x = 0; x < (of_a ? Kernel::BM : Kernel::BN); ++x) {
        const int i = of_a ? row0 + x : k0 + kk, j = of_a ? k0 + kk : col0 + x;
        const Scalar want = i < (of_a ? M : K) && j < (of_a ? K : N)
                                ? (of_a ? k.g.a(i, j) : k.g.b(i, j))
                                : Scalar(0);
        const int at =
            of_a ? Kernel::a_layout()(x, kk) : Kernel::kAScalars + Kernel::b_layout()(kk, x);
        ASSERT_EQ(buffer[at], want) << how << (of_a ? " As, m " : " Bs, n ") << x << ", k " << kk;
      }
    }
  };
  for (const auto& [row0, col0, k0] : {std::tuple{0, 0, 0}, {128, 128, 16}}) {  // inside; edges
    std::fill(buffer.begin(), buffer.end(), Scalar(-1));
    const auto a = k.a_panel(buffer.data(), row0, k0), b = k.b_panel(buffer.data(), k0, col0);
    for (int rank = 0; rank < Kernel::kLanes; ++rank) {
      Scalar stage_a[Kernel::kStageA], stage_b[Kernel::kStageB];
      const auto quads_a = a.walk(rank, Kernel::kLanes, 4),
                 quads_b = b.walk(rank, Kernel::kLanes, 4);
      const bool in_a = Kernel::fetch(k.g.a, aligned, a, rank, quads_a, stage_a);
      const bool in_b = Kernel::fetch(k.g.b, aligned, b, rank, quads_b, stage_b);
      Kernel::deposit(in_a, a, rank, quads_a, stage_a);
      Kernel::deposit(in_b, b, rank, quads_b, stage_b);
    }
    expect_panel("staged", true, row0, col0, k0);
    expect_panel("staged", false, row0, col0, k0);
    if constexpr (Kernel::kCopies > 0) {
      std::fill(buffer.begin(), buffer.end(), Scalar(-1));
      const bool copy_a = a.dst_along_lines() && a.inside(k.g.a);
      const bool copy_b = b.dst_along_lines() && b.inside(k.g.b);
      for (int rank = 0; rank < Kernel::kLanes; ++rank) {
        constexpr int kRun = Kernel::kRun;
        if (copy_a)
          Kernel::template copy<Kernel::kStageA / kRun>(k.g.a, a,
                                                        a.walk(rank, Kernel::kLanes, kRun));
        if (copy_b)
          Kernel::template copy<Kernel::kStageB / kRun>(k.g.b, b,
                                                        b.walk(rank, Kernel::kLanes, kRun));
      }
      if (copy_a) expect_panel("copied", true, row0, col0, k0);
      if (copy_b) expect_panel("copied", false, row0, col0, k0);
    }
  }
}

TEST(TensorTiledStaging, EveryRankStagesItsShare) {
  using AsKM = kernels::TensorTile<128, 128, 8, 64, 32>;           // As[k][m]
  using AsSwizzled = kernels::TensorTile<128, 64, 8, 64, 32, 3>;   // As[m][k], swizzled in double
  using AsPadded = kernels::TensorTile<64, 64, 16, 32, 32, 2>;     // As[m][k], padded rows
  using Wide = kernels::TensorTile<128, 64, 16, 64, 32, 3, true>;  // float: Bs swizzled
  for (int op = 0; op < 4; ++op) {
    for (const bool aligned : {false, true}) {
      check_staging<double, AsKM, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging<double, AsKM, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
      check_staging<double, AsSwizzled, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging<double, AsSwizzled, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
      check_staging<double, AsPadded, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging<float, Wide, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging<float, Wide, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
    }
  }
}

/// The launch's default counts on copies exactly where the kernel makes them: for an inner tile, K
/// in whole blocks and aligned runs, TensorTiled::copies_can_engage (the plan's view, from the op
/// and layout) agrees with TensorTiledGemm::copies_as_they_lie (the kernel's, from the operands),
/// in one op of each layout. Returns whether they engage.
template <class Layout>
bool check_copies_engage(bool transposed_a, bool transposed_b) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Kernel =
      kernels::TensorTiledGemm<Space, double, Layout, kernels::TensorTile<128, 64, 8, 64, 32, 3>>;
  using Matrix = typename Kernel::Operands::matrix;
  const int M = 256, N = 128, K = 32;
  Kernel k{};
  k.g.a = {Matrix("A", transposed_a ? K : M, transposed_a ? M : K), transposed_a};
  k.g.b = {Matrix("B", transposed_b ? N : K, transposed_b ? K : N), transposed_b};
  k.g.c = Matrix("C", M, N);
  k.quads_a = k.g.a.runs_aligned(4);
  k.quads_b = k.g.b.runs_aligned(4);
  std::vector<double> buffer(Kernel::kBuffer);
  const Extents e{M, N, K, transposed_a ? Trans::T : Trans::N, transposed_b ? Trans::T : Trans::N};
  const bool engage = k.copies_as_they_lie(0, 0, buffer.data());
  EXPECT_EQ(engage, (kernels::TensorTiled<Space, double, Layout>::copies_can_engage(e)))
      << "op " << to_string(e.trans_a) << to_string(e.trans_b);
  return engage;
}

TEST(TensorTiledStaging, DefaultCountsOnCopiesWhereTheyEngage) {
  int right = 0, left = 0;
  for (int op = 0; op < 4; ++op) {
    right += check_copies_engage<Kokkos::LayoutRight>(op & 1, op & 2);
    left += check_copies_engage<Kokkos::LayoutLeft>(op & 1, op & 2);
  }
  EXPECT_EQ(right, 1) << "NN alone in LayoutRight";
  EXPECT_EQ(left, 1) << "TT alone in LayoutLeft";
}

/// Shared-memory wavefronts of one warp-wide access of `bytes` a lane at the byte offsets `at`, by
/// CUDA's model: 32 banks of 4 bytes; 8-byte accesses served a half-warp at a time, 16-byte ones a
/// quarter-warp; within one, a bank serves one 4-byte word a wavefront (lanes that read the same
/// word share it). A warp needs at least 32 x bytes / 128.
int wavefronts(const std::vector<long>& at, int bytes) {
  const int group = 128 / bytes;
  int total = 0;
  for (int first = 0; first < kLanes; first += group) {
    std::vector<std::vector<long>> words(32);  // the distinct words each bank serves
    for (int lane = first; lane < first + group; ++lane) {
      for (long word = at[lane] / 4; word < (at[lane] + bytes) / 4; ++word) {
        auto& bank = words[word % 32];
        if (std::find(bank.begin(), bank.end(), word) == bank.end()) bank.push_back(word);
      }
    }
    std::size_t most = 0;
    for (const auto& bank : words) most = std::max(most, bank.size());
    total += int(most);
  }
  return total;
}

/// The wide schedule's loads of one warp (warp/wide_tf32.hpp) from a scratch whose every
/// element holds its own offset: A's 16-byte loads of 4 neighbours in the fewest wavefronts (4 a
/// warp), B's 4-byte loads in one.
template <class Kernel>
void check_wide_loads(const std::string& name, const float* As, const float* Bs, int wm0, int wn0) {
  using Wide = kernels::WideTf32;
  for (int f = 0; f < Kernel::FM; ++f) {
    std::vector<long> upper(kLanes), lower(kLanes);
    for (int lane = 0; lane < kLanes; ++lane) {
      typename Wide::Frag::A a[Wide::kSteps];
      Wide::load_a(As, wm0 + Wide::Frag::kM * f, lane, a);
      for (int j = 0; j < 4; ++j) {  // a load's neighbours: k 4 t + j of rows g and g + 8
        EXPECT_EQ(a[j / 2].v[2 * (j % 2)], a[0].v[0] + j) << name << " lane " << lane;
        EXPECT_EQ(a[j / 2].v[2 * (j % 2) + 1], a[0].v[1] + j) << name << " lane " << lane;
      }
      upper[lane] = long(a[0].v[0]) * 4;
      lower[lane] = long(a[0].v[1]) * 4;
    }
    EXPECT_EQ(wavefronts(upper, 16), 4) << name << ": A fragment " << f << ", rows g";
    EXPECT_EQ(wavefronts(lower, 16), 4) << name << ": A fragment " << f << ", rows g + 8";
  }
  for (int f = 0; f < Kernel::FN; ++f) {
    std::vector<std::array<typename Wide::Frag::B, Wide::kSteps>> b(kLanes);
    for (int lane = 0; lane < kLanes; ++lane) {
      typename Wide::Frag::B loaded[Wide::kSteps];
      Wide::load_b(Bs, Kernel::b_layout(), wn0 + Wide::Frag::kN * f, lane, loaded);
      for (int s = 0; s < Wide::kSteps; ++s) b[lane][s] = loaded[s];
    }
    for (int s = 0; s < Wide::kSteps; ++s) {
      for (int i = 0; i < Wide::Frag::kB; ++i) {
        std::vector<long> at(kLanes);
        for (int lane = 0; lane < kLanes; ++lane) at[lane] = long(b[lane][s].v[i]) * 4;
        EXPECT_EQ(wavefronts(at, 4), 1) << name << ": B fragment " << f << ", k-step " << s;
      }
    }
  }
}

/// For every tile of the table, every warp's fragment loads (tensor_tiled/kernel.hpp, mma_block)
/// take the fewest wavefronts at every k-step: one a warp in float, two in double. The loads of a
/// scratch whose every element holds its own offset give the addresses that the lanes read.
template <class Scalar>
void check_fragment_loads_conflict_free() {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Launch = kernels::TensorTiled<Space, Scalar, Kokkos::LayoutRight>;
  kernels::any_of_types(typename Launch::Tiles{}, [](auto tile) {
    using Kernel = kernels::TensorTiledGemm<Space, Scalar, Kokkos::LayoutRight, decltype(tile)>;
    using Frag = typename Kernel::Frag;
    const std::string name = decltype(tile)::tiling().to_string();
    std::vector<Scalar> offsets(Kernel::kBuffer);
    std::iota(offsets.begin(), offsets.end(), Scalar(0));  // exact in float at these sizes
    const Scalar* As = offsets.data();
    const Scalar* Bs = As + Kernel::kAScalars;
    const int fewest = kLanes * int(sizeof(Scalar)) / 128;
    const auto expect_fewest = [&](const char* what, int f, int kk, int i, const auto& loaded) {
      std::vector<long> at(kLanes);
      for (int lane = 0; lane < kLanes; ++lane) at[lane] = long(loaded[lane].v[i]) * sizeof(Scalar);
      EXPECT_EQ(wavefronts(at, sizeof(Scalar)), fewest)
          << name << ": " << what << " fragment " << f << ", k " << kk << ", element " << i;
    };
    for (int warp = 0; warp < Kernel::kWarps; ++warp) {
      const int wm0 = (warp / Kernel::kWarpsN) * Kernel::WM;
      const int wn0 = (warp % Kernel::kWarpsN) * Kernel::WN;
      if constexpr (Kernel::kWideSchedule) {
        check_wide_loads<Kernel>(name, As, Bs, wm0, wn0);
        continue;
      }
      for (int kk = 0; kk < Kernel::BK; kk += Kernel::kInstK) {
        for (int f = 0; f < Kernel::FM; ++f) {
          std::vector<typename Frag::A> a(kLanes);
          for (int lane = 0; lane < kLanes; ++lane)
            a[lane] = Frag::load_a(As, Kernel::a_layout(), wm0 + Frag::kM * f, kk, lane);
          for (int i = 0; i < Frag::kA; ++i) expect_fewest("A", f, kk, i, a);
        }
        for (int f = 0; f < Kernel::FN; ++f) {
          std::vector<typename Frag::B> b(kLanes);
          for (int lane = 0; lane < kLanes; ++lane)
            b[lane] = Frag::load_b(Bs, Kernel::kLdb, kk, wn0 + Frag::kN * f, lane);
          for (int i = 0; i < Frag::kB; ++i) expect_fewest("B", f, kk, i, b);
        }
      }
    }
    return false;  // on to the next tile
  });
}

TEST(TensorTiledScratch, FragmentLoadsMeetNoBankConflict) {
  check_fragment_loads_conflict_free<float>();
  check_fragment_loads_conflict_free<double>();
}

/// The copies of a panel p (tensor_tiled/kernel.hpp, copy) by each warp of the team, `runs` 16-byte
/// runs a lane, neighbouring lanes neighbouring runs: every copy a warp makes at once writes in the
/// fewest wavefronts, 4.
template <class Kernel, class Panel>
void check_copies_conflict_free(const char* what, const Panel& p, int runs) {
  constexpr int kScalar = sizeof(*p.dst);
  for (int warp = 0; warp < Kernel::kWarps; ++warp) {
    std::vector<kernels::PanelWalk> walks;
    for (int lane = 0; lane < kLanes; ++lane)
      walks.push_back(p.walk(32 * warp + lane, Kernel::kLanes, Kernel::kRun));
    for (int s = 0; s < runs; ++s) {
      std::vector<long> at(kLanes);
      for (int lane = 0; lane < kLanes; ++lane) {
        ASSERT_TRUE(walks[lane].more());
        at[lane] = long(&p.at(walks[lane].line, walks[lane].pos()) - p.dst) * kScalar;
      }
      EXPECT_EQ(wavefronts(at, 16), 4) << what << ": warp " << warp << ", copy " << s;
      for (auto& w : walks) w.next();
    }
  }
}

/// The copies of both panels of tile T in Scalar, NN in LayoutRight (where the copies engage).
template <class Scalar, class Tile>
void check_tile_copies(const char* what) {
  using Kernel = kernels::TensorTiledGemm<Kokkos::DefaultHostExecutionSpace, Scalar,
                                          Kokkos::LayoutRight, Tile>;
  using Matrix = typename Kernel::Operands::matrix;
  Kernel k{};
  k.g.a = {Matrix("A", Kernel::BM, Kernel::BK), false};
  k.g.b = {Matrix("B", Kernel::BK, Kernel::BN), false};
  std::vector<Scalar> buffer(Kernel::kBuffer);
  check_copies_conflict_free<Kernel>((std::string(what) + " As").c_str(),
                                     k.a_panel(buffer.data(), 0, 0),
                                     Kernel::kStageA / Kernel::kRun);
  check_copies_conflict_free<Kernel>((std::string(what) + " Bs").c_str(),
                                     k.b_panel(buffer.data(), 0, 0),
                                     Kernel::kStageB / Kernel::kRun);
}

/// The copies into double's swizzled As (A contiguous along k, NN in LayoutRight) and padded Bs,
/// and into the wide schedule's As and swizzled Bs, meet no bank conflict either.
TEST(TensorTiledScratch, CopiesIntoSwizzledRowsMeetNoBankConflict) {
  using Double128x64 = kernels::TensorTile<128, 64, 8, 64, 32, 3>;  // double's default
  using Double64x128 = kernels::TensorTile<64, 128, 8, 32, 64, 3>;
  using Wide = kernels::TensorTile<128, 64, 16, 64, 32, 3, true>;
  static_assert(kernels::TensorTiledGemm<Kokkos::DefaultHostExecutionSpace, double,
                                         Kokkos::LayoutRight, Double128x64>::kSwizzled,
                "the tile keeps As swizzled");
  static_assert(kernels::TensorTiledGemm<Kokkos::DefaultHostExecutionSpace, float,
                                         Kokkos::LayoutRight, Wide>::kWideSchedule,
                "the tile runs the wide schedule");
  check_tile_copies<double, Double128x64>("double 128x64x8/64x32/s3");
  check_tile_copies<double, Double64x128>("double 64x128x8/32x64/s3");
  check_tile_copies<float, Wide>("wide");
}

}  // namespace
}  // namespace tilemm::test
