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

#include "tilemm/kernels/tensor_tiled/instances.hpp"
#include "tilemm/kernels/tensor_tiled/kernel.hpp"
#include "tilemm/kernels/tensor_tiled/launch.hpp"

namespace tilemm::test {
namespace {

constexpr int kLanes = 32;
using Space = Kokkos::DefaultHostExecutionSpace;
using kernels::Along;

/// The orientations of the operands, each with its name.
template <class F>
void for_each_orientation(F&& f) {
  f(kernels::OrientationKN{}, "KN");
  f(kernels::OrientationKK{}, "KK");
  f(kernels::OrientationNN{}, "NN");
  f(kernels::OrientationNK{}, "NK");
}

/// The GPU schedule's staging (tensor_tiled/kernel.hpp, pipelined): each of the team's ranks
/// fetches its share of a panel into registers and deposits it into scratch; together they must
/// write the whole panel, op(X)'s block with zeros outside op(X), in every op and layout, for
/// panels inside and over the edges of a matrix that divides no tile, read 4 neighbours a load
/// (`aligned`) or one. Where a panel lies inside op(X) along the scratch rows, the copy stages'
/// copies must write the same panel. The panels are read by the kernel's layouts of them
/// (warp/operand_scratch.hpp).
template <class Scalar, class Tile, class Layout, class Orient>
void check_staging(bool transposed_a, bool transposed_b, bool aligned) {
  using Kernel = kernels::TensorTiledGemm<Space, Scalar, Layout, Tile, Orient>;
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
            of_a ? Kernel::a_layout()(x, kk) : Kernel::kAScalars + Kernel::b_layout()(x, kk);
        ASSERT_EQ(buffer[at], want) << how << (of_a ? " As, m " : " Bs, n ") << x << ", k " << kk;
      }
    }
  };
  for (const auto& [row0, col0, k0] : {std::tuple{0, 0, 0}, {128, 128, 16}}) {  // inside; edges
    std::fill(buffer.begin(), buffer.end(), Scalar(-1));
    const auto a = k.a_panel(buffer.data(), row0, k0);
    const auto b = k.b_panel(buffer.data(), k0, col0);
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
        if (copy_a) Kernel::copy(k.g.a, a, typename Kernel::RunsA(rank));
        if (copy_b) Kernel::copy(k.g.b, b, typename Kernel::RunsB(rank));
      }
      if (copy_a) expect_panel("copied", true, row0, col0, k0);
      if (copy_b) expect_panel("copied", false, row0, col0, k0);
    }
  }
}

/// Each tile stages its panels in the orientation the ops give the operands (a GPU's kernel),
/// and in OrientationNN whatever they are (a CPU's, and the plain products' kernel on a GPU).
template <class Scalar, class Tile, class Layout>
void check_staging_oriented(bool transposed_a, bool transposed_b, bool aligned) {
  kernels::with_operands_orientation<Layout>(
      transposed_a ? Trans::T : Trans::N, transposed_b ? Trans::T : Trans::N, [&](auto orient) {
        check_staging<Scalar, Tile, Layout, decltype(orient)>(transposed_a, transposed_b, aligned);
      });
  check_staging<Scalar, Tile, Layout, kernels::OrientationNN>(transposed_a, transposed_b, aligned);
}

TEST(TensorTiledStaging, EveryRankStagesItsShare) {
  using Staged = kernels::TensorTile<128, 64, 16, 64, 32>;      // one buffer in double
  using Swizzled = kernels::TensorTile<128, 64, 8, 64, 32, 3>;  // rows of 8 doubles swizzled
  using Padded = kernels::TensorTile<64, 64, 16, 32, 32>;       // rows of 16 + 4
  using Wide = kernels::TensorTile<128, 64, 16, 64, 32, 3, kernels::WarpSchedule::wide>;
  for (int op = 0; op < 4; ++op) {
    for (const bool aligned : {false, true}) {
      check_staging_oriented<double, Staged, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging_oriented<double, Swizzled, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging_oriented<double, Swizzled, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
      check_staging_oriented<double, Padded, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
      check_staging_oriented<float, Swizzled, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging_oriented<float, Wide, Kokkos::LayoutRight>(op & 1, op & 2, aligned);
      check_staging_oriented<float, Wide, Kokkos::LayoutLeft>(op & 1, op & 2, aligned);
    }
  }
}

/// The launch's default counts on copies exactly where the kernel makes them: for an inner tile,
/// tensor_tiles::copies_can_engage (the plan's view, from the extents, ops and layout) agrees
/// with TensorTiledGemm::copies_as_they_lie (the kernel's, from the operands) in every op and
/// layout, where the leading dimensions are whole runs of 4 and where one is not. Returns whether
/// they engage.
template <class Layout>
bool check_copies_engage(bool transposed_a, bool transposed_b, int K) {
  const int M = 256, N = 128;
  const Extents e{M, N, K, transposed_a ? Trans::T : Trans::N, transposed_b ? Trans::T : Trans::N};
  bool engage = false;
  kernels::with_operands_orientation<Layout>(e.trans_a, e.trans_b, [&](auto orient) {
    using Kernel =
        kernels::TensorTiledGemm<Space, double, Layout, kernels::TensorTile<128, 64, 8, 64, 32, 3>,
                                 decltype(orient)>;
    using Matrix = typename Kernel::Operands::matrix;
    Kernel k{};
    k.g.a = {Matrix("A", transposed_a ? K : M, transposed_a ? M : K), transposed_a};
    k.g.b = {Matrix("B", transposed_b ? N : K, transposed_b ? K : N), transposed_b};
    k.g.c = Matrix("C", M, N);
    k.quads_a = k.g.a.runs_aligned(4);
    k.quads_b = k.g.b.runs_aligned(4);
    std::vector<double> buffer(Kernel::kBuffer);
    engage = k.copies_as_they_lie(0, 0, buffer.data());
  });
  constexpr tilemm::Layout layout =
      std::is_same_v<Layout, Kokkos::LayoutRight> ? tilemm::Layout::Right : tilemm::Layout::Left;
  EXPECT_EQ(engage, kernels::tensor_tiles::copies_can_engage(e, layout))
      << "op " << to_string(e.trans_a) << to_string(e.trans_b) << ", K " << K;
  return engage;
}

/// A GPU's mma kernels read each op as a compile-time constant that their orientation implies:
/// every op in either layout must map to an orientation that gives that op back.
TEST(TensorTiledStaging, OrientationGivesTheOpsBack) {
  for (const bool right : {true, false}) {
    for (int op = 0; op < 4; ++op) {
      const Trans ta = op & 1 ? Trans::T : Trans::N, tb = op & 2 ? Trans::T : Trans::N;
      const auto check = [&](auto orient) {
        using O = decltype(orient);
        EXPECT_EQ(kernels::transposes_a(O::a, right), ta == Trans::T) << right << op;
        EXPECT_EQ(kernels::transposes_b(O::b, right), tb == Trans::T) << right << op;
      };
      if (right) {
        kernels::with_operands_orientation<Kokkos::LayoutRight>(ta, tb, check);
      } else {
        kernels::with_operands_orientation<Kokkos::LayoutLeft>(ta, tb, check);
      }
    }
  }
}

TEST(TensorTiledStaging, DefaultCountsOnCopiesWhereTheyEngage) {
  for (int op = 0; op < 4; ++op) {
    EXPECT_TRUE(check_copies_engage<Kokkos::LayoutRight>(op & 1, op & 2, 32)) << "op " << op;
    EXPECT_TRUE(check_copies_engage<Kokkos::LayoutLeft>(op & 1, op & 2, 32)) << "op " << op;
    // K = 30 leaves the lines of op(A) or op(B) that run along k out of step with the runs.
    const bool k_lines = !(op & 1) || (op & 2);  // LayoutRight: A along k, or B along k
    EXPECT_EQ(check_copies_engage<Kokkos::LayoutRight>(op & 1, op & 2, 30), !k_lines);
    check_copies_engage<Kokkos::LayoutLeft>(op & 1, op & 2, 30);
  }
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

/// A warp's loads of 4 neighbours k = 4 t .. 4 t + 3 of a row a lane (the wide schedule's
/// WideTf32::four_k), at scalar offsets at[lane][j]: from rows of k one 16-byte load of neighbours
/// in scratch, in the fewest wavefronts (4 a warp), else four 4-byte loads, in one each.
void expect_four_k_loads(const std::string& what, const std::vector<std::array<long, 4>>& at,
                         bool rows_of_k) {
  std::vector<long> bytes(kLanes);
  for (int j = 0; j < 4; ++j) {
    for (int lane = 0; lane < kLanes; ++lane) {
      if (rows_of_k) EXPECT_EQ(at[lane][j], at[lane][0] + j) << what << ", lane " << lane;
      bytes[lane] = at[lane][j] * 4;
    }
    if (rows_of_k) {
      EXPECT_EQ(wavefronts(bytes, 16), 4) << what;
      return;
    }
    EXPECT_EQ(wavefronts(bytes, 4), 1) << what << ", k 4 t + " << j;
  }
}

/// One lane's fragments of a warp region's K block in the wide schedule (warp/wide_tf32.hpp).
template <class Kernel>
struct WideLane {
  using Wide = kernels::WideTf32;
  typename Wide::Frag::A a[Kernel::FM][Wide::kSteps];
  typename Wide::Frag::B b[Kernel::FN][Wide::kSteps];
};
/// Every lane's fragments of the warp region at (wm0, wn0), as the wide schedule loads them.
template <class Kernel>
std::vector<WideLane<Kernel>> wide_fragments(const float* As, const float* Bs, int wm0, int wn0) {
  std::vector<WideLane<Kernel>> lanes(kLanes);
  for (int lane = 0; lane < kLanes; ++lane) {
    kernels::WideTf32::load_a_warp<Kernel::kAlongA>(As, Kernel::a_layout(), wm0, lane,
                                                    lanes[lane].a);
    kernels::WideTf32::load_b_warp<Kernel::kAlongB>(Bs, Kernel::b_layout(), wn0, lane,
                                                    lanes[lane].b);
  }
  return lanes;
}

/// A warp's 16-byte loads of runs of 4 scalars, at the scalar offsets run[lane][x] of their
/// elements: neighbours in scratch, read in the fewest wavefronts (4 a warp).
void expect_run_loads(const std::string& what, const std::vector<std::array<long, 4>>& run) {
  std::vector<long> bytes(kLanes);
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int x = 0; x < 4; ++x)
      EXPECT_EQ(run[lane][x], run[lane][0] + x) << what << ", lane " << lane;
    bytes[lane] = run[lane][0] * 4;
  }
  EXPECT_EQ(wavefronts(bytes, 16), 4) << what;
}

/// The wide schedule's loads of one warp (warp/wide_tf32.hpp) from a scratch whose every element
/// holds its own offset, in the fewest wavefronts: from rows of k, rows g and g + 8 of each A
/// fragment and row g of each B fragment; from rows of m or n, the interleaved fragments' runs
/// of 8 rows of A and 4 columns of B at each of a lane's 4 k.
template <class Kernel>
void check_wide_loads(const std::string& name, const float* As, const float* Bs, int wm0, int wn0) {
  const auto lanes = wide_fragments<Kernel>(As, Bs, wm0, wn0);
  // A lane's element at k 4 t + j of fragment f's rows g (half 0) and g + 8 (half 1), or of B's
  // fragment f: step j / 2, element (j % 2) 2 + half of A, j % 2 of B.
  const auto a_at = [&](int lane, int f, int half, int j) {
    return long(lanes[lane].a[f][j / 2].v[2 * (j % 2) + half]);
  };
  const auto b_at = [&](int lane, int f, int j) {
    return long(lanes[lane].b[f][j / 2].v[j % 2]);
  };
  std::vector<std::array<long, 4>> run(kLanes);
  if constexpr (Kernel::kAlongA == Along::k) {
    for (int f = 0; f < Kernel::FM; ++f) {
      for (int half = 0; half < 2; ++half) {
        for (int lane = 0; lane < kLanes; ++lane)
          for (int j = 0; j < 4; ++j) run[lane][j] = a_at(lane, f, half, j);
        expect_run_loads(
            name + ": A fragment " + std::to_string(f) + " half " + std::to_string(half), run);
      }
    }
  } else {
    for (int j = 0; j < 4; ++j) {  // rows 4 q .. 4 q + 3 of the lane's 8: fragments 2 q, 2 q + 1
      for (int q = 0; q < 2; ++q) {
        for (int lane = 0; lane < kLanes; ++lane)
          for (int x = 0; x < 4; ++x) run[lane][x] = a_at(lane, 2 * q + x / 2, x % 2, j);
        expect_run_loads(
            name + ": A rows of k 4 t + " + std::to_string(j) + ", run " + std::to_string(q), run);
      }
    }
  }
  if constexpr (Kernel::kAlongB == Along::k) {
    for (int f = 0; f < Kernel::FN; ++f) {
      for (int lane = 0; lane < kLanes; ++lane)
        for (int j = 0; j < 4; ++j) run[lane][j] = b_at(lane, f, j);
      expect_run_loads(name + ": B fragment " + std::to_string(f), run);
    }
  } else {
    for (int j = 0; j < 4; ++j) {  // the lane's 4 columns: fragments 0 .. 3
      for (int lane = 0; lane < kLanes; ++lane)
        for (int x = 0; x < 4; ++x) run[lane][x] = b_at(lane, x, j);
      expect_run_loads(name + ": B columns at k 4 t + " + std::to_string(j), run);
    }
  }
}

/// The wide schedule's K block, emulated: the lanes' fragments as load_a_warp and load_b_warp
/// give them, multiplied by the mma's maps (warp/mma_fragment.hpp), each lane's elements of C
/// placed by WideTf32::c_row and c_col, give a warp region's product of the K block exactly
/// (small integers), in every orientation: the loads' k order, rows and columns agree with the
/// store's.
template <class Kernel>
void check_wide_product(const std::string& name) {
  using Wide = kernels::WideTf32;
  using Frag = Wide::Frag;
  std::vector<float> buffer(Kernel::kBuffer);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = float(int(i * 7919 % 17) - 8);
  const float* As = buffer.data();
  const float* Bs = As + Kernel::kAScalars;
  const auto at = Kernel::a_layout();
  const auto bt = Kernel::b_layout();
  const auto lanes = wide_fragments<Kernel>(As, Bs, 0, 0);
  for (int i = 0; i < Kernel::FM; ++i) {
    for (int j = 0; j < Kernel::FN; ++j) {
      for (int lane = 0; lane < kLanes; ++lane) {
        for (int e = 0; e < Frag::kC; ++e) {
          double mma = 0;  // C element e of `lane` by the mma's maps over both k-steps
          for (int s = 0; s < Wide::kSteps; ++s) {
            for (int kk = 0; kk < Frag::kK; ++kk) {
              const int r = Frag::c_row(lane, e), c = Frag::c_col(lane, e);
              const int a_lane = 4 * (r % 8) + kk % 4, b_lane = 4 * c + kk % 4;
              mma += double(lanes[a_lane].a[i][s].v[r / 8 + 2 * (kk / 4)]) *
                     lanes[b_lane].b[j][s].v[kk / 4];
            }
          }
          const int row = Wide::c_row<Kernel::kAlongA>(i, lane, e);
          const int col = Wide::c_col<Kernel::kAlongB>(j, lane, e);
          double direct = 0;
          for (int k = 0; k < Kernel::BK; ++k) direct += double(As[at(row, k)]) * Bs[bt(col, k)];
          ASSERT_EQ(mma, direct) << name << ": fragment (" << i << ", " << j << "), lane " << lane
                                 << ", element " << e;
        }
      }
    }
  }
}

/// For every tile of the table in every orientation, every warp's fragment loads
/// (warp/block_product.hpp, BlockProduct::mma) take the fewest wavefronts at every k-step: one a
/// warp in float, two in double. The loads of a scratch whose every element holds its own offset
/// give the addresses that the lanes read.
template <class Scalar, class Orient>
void check_fragment_loads_conflict_free(const char* orientation) {
  using Launch = kernels::TensorTiled<Space, Scalar, Kokkos::LayoutRight, Orient>;
  kernels::any_of_types(typename Launch::Tiles{}, [&](auto tile) {
    using Kernel =
        kernels::TensorTiledGemm<Space, Scalar, Kokkos::LayoutRight, decltype(tile), Orient>;
    using Frag = typename Kernel::Frag;
    const std::string name = decltype(tile)::tiling().to_string() + " " + orientation;
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
            b[lane] = Frag::load_b(Bs, Kernel::b_layout(), kk, wn0 + Frag::kN * f, lane);
          for (int i = 0; i < Frag::kB; ++i) expect_fewest("B", f, kk, i, b);
        }
      }
    }
    return false;  // on to the next tile
  });
}

TEST(TensorTiledScratch, FragmentLoadsMeetNoBankConflict) {
  for_each_orientation([](auto orient, const char* name) {
    check_fragment_loads_conflict_free<float, decltype(orient)>(name);
    check_fragment_loads_conflict_free<double, decltype(orient)>(name);
  });
}

/// Every wide tile of the table, in every orientation, multiplies a K block as the plain
/// product does.
TEST(TensorTiledScratch, WideScheduleInterleavesAsItStores) {
  for_each_orientation([](auto orient, const char* name) {
    using Orient = decltype(orient);
    using Launch = kernels::TensorTiled<Space, float, Kokkos::LayoutRight, Orient>;
    kernels::any_of_types(typename Launch::Tiles{}, [&](auto tile) {
      using Kernel =
          kernels::TensorTiledGemm<Space, float, Kokkos::LayoutRight, decltype(tile), Orient>;
      if constexpr (Kernel::kWideSchedule)
        check_wide_product<Kernel>(decltype(tile)::tiling().to_string() + " " + name);
      return false;
    });
  });
}

/// The copies of a panel p (tensor_tiled/kernel.hpp, copy) by each warp of the team, `runs` 16-byte
/// runs a lane, neighbouring lanes neighbouring runs: every copy a warp makes at once writes in the
/// fewest wavefronts, 4.
template <class Kernel, class Panel>
void check_copies_conflict_free(const std::string& what, const Panel& p, int runs) {
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

/// The copies of both panels of every tile with copy stages that fits the precision, in every
/// orientation (the ops that give it in LayoutRight, where the copies engage).
template <class Scalar, class Orient>
void check_tile_copies(const char* orientation) {
  using Launch = kernels::TensorTiled<Space, Scalar, Kokkos::LayoutRight, Orient>;
  kernels::any_of_types(typename Launch::Tiles{}, [&](auto tile) {
    using Kernel =
        kernels::TensorTiledGemm<Space, Scalar, Kokkos::LayoutRight, decltype(tile), Orient>;
    using Matrix = typename Kernel::Operands::matrix;
    if constexpr (Kernel::kCopies > 0 && Kernel::scratch_bytes() <= Kernel::kLevel0Bytes) {
      const bool ta = Kernel::kAlongA == Along::mn, tb = Kernel::kAlongB == Along::k;
      Kernel k{};
      k.g.a = {Matrix("A", ta ? Kernel::BK : Kernel::BM, ta ? Kernel::BM : Kernel::BK), ta};
      k.g.b = {Matrix("B", tb ? Kernel::BN : Kernel::BK, tb ? Kernel::BK : Kernel::BN), tb};
      std::vector<Scalar> buffer(Kernel::kBuffer);
      const std::string name = decltype(tile)::tiling().to_string() + " " + orientation;
      const auto a = k.a_panel(buffer.data(), 0, 0);
      const auto b = k.b_panel(buffer.data(), 0, 0);
      EXPECT_TRUE(a.dst_along_lines() && b.dst_along_lines()) << name;
      check_copies_conflict_free<Kernel>(name + " As", a, Kernel::kStageA / Kernel::kRun);
      check_copies_conflict_free<Kernel>(name + " Bs", b, Kernel::kStageB / Kernel::kRun);
    }
    return false;
  });
}

/// The copies into every orientation's scratch, padded or swizzled, meet no bank conflict either.
TEST(TensorTiledScratch, CopiesMeetNoBankConflict) {
  for_each_orientation([](auto orient, const char* name) {
    check_tile_copies<float, decltype(orient)>(name);
    check_tile_copies<double, decltype(orient)>(name);
  });
}

}  // namespace
}  // namespace tilemm::test
