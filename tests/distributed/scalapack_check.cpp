// tilemm's distributed product (distributed/summa.hpp) against ScaLAPACK's p?gemm on the same
// distribution: for every grid of the ranks (1x1; 1x2, 2x1; 1x4, 4x1, 2x2), every op, layout,
// precision and kernel, on extents that no block and no panel divide, each element of a rank's
// piece of C must lie within the componentwise bound (k + 2) eps (|alpha| sum_l |op(A)(i,l)
// op(B)(l,j)| + |beta| |C0(i,j)|) of the product in long double, which shares no BLAS with Kokkos
// Kernels, and within twice that bound of ScaLAPACK's (each within it of the exact product); and
// pass tilemm's own validation. The cases of
// one kernel read A, B and C from .npy files that hold the same values (each rank reads its own
// blocks of them), in the other element order than the layout's. Run under mpiexec; exits 0 when
// every case passes, 1 otherwise (rank 0 names the failing cases).
//   scalapack_check [COMM]   COMM: the key `comm` of every case (default auto: NCCL on GPUs of a
//                            build with NCCL, which needs a GPU a rank; mpi with fewer GPUs)
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "temp_dir.hpp"
#include "tilemm/backends.hpp"
#include "tilemm/distributed/summa.hpp"
#include "tilemm/kernel_names.hpp"

extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* context, const int* lld, int* info);
void pdgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc);
void psgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
             const float* b, const int* ib, const int* jb, const int* descb, const float* beta,
             float* c, const int* ic, const int* jc, const int* descc);
}

namespace {

using tilemm::distributed::BlockCyclic;

struct Case {
  int rows, cols;
  tilemm::Trans ta, tb;
  tilemm::Layout layout;
  tilemm::Precision precision;
  std::string kernel;
  double beta;
  std::string comm;
  bool files;  // A, B and C from .npy files
};

/// A ScaLAPACK matrix: its descriptor and this rank's column-major piece, filled by tilemm's
/// value-by-position rule.
template <class Scalar>
struct ScaMatrix {
  int desc[9];
  std::vector<Scalar> local;
  ScaMatrix(int context, int m, int n, int nb, int row, int col, int rows, int cols,
            std::uint64_t seed, tilemm::MatrixId id, bool fill) {
    const int zero = 0;
    const int lm = numroc_(&m, &nb, &row, &zero, &rows), ln = numroc_(&n, &nb, &col, &zero, &cols);
    const int lld = std::max(1, lm);
    int info = 0;
    descinit_(desc, &m, &n, &nb, &nb, &zero, &zero, &context, &lld, &info);
    local.assign(std::size_t(lld) * ln, Scalar(0));
    const BlockCyclic r{m, nb, rows, row}, c{n, nb, cols, col};
    for (int j = 0; j < ln && fill; ++j) {
      for (int i = 0; i < lm; ++i) {
        const std::int64_t e = r.to_global(i) * n + c.to_global(j);
        local[std::size_t(j) * lld + i] = static_cast<Scalar>(tilemm::uniform_value(seed, id, e));
      }
    }
  }
};

void sca_gemm(char ta, char tb, int m, int n, int k, double alpha, const ScaMatrix<double>& a,
              const ScaMatrix<double>& b, double beta, ScaMatrix<double>& c) {
  const int one = 1;
  pdgemm_(&ta, &tb, &m, &n, &k, &alpha, a.local.data(), &one, &one, a.desc, b.local.data(), &one,
          &one, b.desc, &beta, c.local.data(), &one, &one, c.desc);
}
void sca_gemm(char ta, char tb, int m, int n, int k, double alpha, const ScaMatrix<float>& a,
              const ScaMatrix<float>& b, double beta, ScaMatrix<float>& c) {
  const int one = 1;
  const float fa = float(alpha), fb = float(beta);
  psgemm_(&ta, &tb, &m, &n, &k, &fa, a.local.data(), &one, &one, a.desc, b.local.data(), &one, &one,
          b.desc, &fb, c.local.data(), &one, &one, c.desc);
}

constexpr int kM = 37, kN = 29, kK = 41, kBlock = 8, kPanel = 5;
constexpr double kAlpha = 1.25;
constexpr std::uint64_t kSeed = 7;

/// The folder of the cases' .npy files: a temporary one that rank 0 makes and, once every rank is
/// done, removes; its path is sent to every rank.
class NpyFolder {
 public:
  NpyFolder() {
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) {
      made_.emplace();
      path_ = made_->path("");
    }
    int length = static_cast<int>(path_.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    path_.resize(static_cast<std::size_t>(length));
    MPI_Bcast(path_.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  ~NpyFolder() { MPI_Barrier(MPI_COMM_WORLD); }  // then made_, on rank 0, removes the folder
  NpyFolder(const NpyFolder&) = delete;
  NpyFolder& operator=(const NpyFolder&) = delete;

  std::string path(const std::string& name) const { return path_ + name; }

 private:
  std::optional<tilemm::test::TempDir> made_;
  std::string path_;
};

/// Stored matrix `id` (rows x cols) by the value-by-position rule, written by rank 0 into a .npy
/// file of Scalar's dtype (in Fortran order with `fortran`) in `folder` and read by every rank as
/// a spec's file is.
template <class Scalar>
tilemm::NpySource rule_file(tilemm::MatrixId id, std::int64_t rows, std::int64_t cols, bool fortran,
                            const NpyFolder& folder) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  tilemm::NpySource src;
  src.path = folder.path("matrix_" + std::to_string(static_cast<int>(id)) + ".npy");
  if (me == 0) {
    std::vector<Scalar> values(std::size_t(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        values[fortran ? j * rows + i : i * cols + j] =
            static_cast<Scalar>(tilemm::uniform_value(kSeed, id, i * cols + j));
      }
    }
    tilemm::npy::write(src.path, values.data(), rows, cols, fortran);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  src.rows = rows;
  src.cols = cols;
  src.fortran_order = fortran;
  src.file = std::make_shared<const tilemm::npy::File>(tilemm::npy::read(src.path));
  return src;
}

/// Element (i, j) of alpha op(A) op(B) + beta C0 in long double, and its magnitude |alpha| sum_l
/// |op(A)(i,l) op(B)(l,j)| + |beta| |C0(i,j)|, from the value-by-position rule in Scalar (the
/// cases' files hold the same values).
template <class Scalar>
std::pair<long double, long double> exact_element(const Case& c, std::int64_t i, std::int64_t j) {
  using tilemm::MatrixId;
  const auto value = [](MatrixId id, std::int64_t row, std::int64_t col, std::int64_t cols) {
    return static_cast<long double>(
        static_cast<Scalar>(tilemm::uniform_value(kSeed, id, row * cols + col)));
  };
  const bool ta = c.ta == tilemm::Trans::T, tb = c.tb == tilemm::Trans::T;
  long double sum = 0, magnitude = 0;
  for (std::int64_t l = 0; l < kK; ++l) {
    const long double a = ta ? value(MatrixId::A, l, i, kM) : value(MatrixId::A, i, l, kK);
    const long double b = tb ? value(MatrixId::B, j, l, kK) : value(MatrixId::B, l, j, kN);
    sum += a * b;
    magnitude += std::fabs(a * b);
  }
  const long double c0 = c.beta != 0 ? value(MatrixId::C, i, j, kN) : 0;
  return {kAlpha * sum + c.beta * c0,
          std::fabs(kAlpha) * magnitude + std::fabs(c.beta) * std::fabs(c0)};
}

/// Runs one case on this rank; returns whether its piece of C agrees (false on every rank when
/// the case fails anywhere).
template <class Scalar, class Layout>
bool check(const Case& c, int context, const NpyFolder& folder) {
  tilemm::Problem p;
  p.origin = {"scalapack_check", c.kernel, 0, 0};
  p.m = kM, p.n = kN, p.k = kK;
  p.precision = c.precision;
  p.layout = c.layout;
  p.trans_a = c.ta, p.trans_b = c.tb;
  p.alpha = kAlpha, p.beta = c.beta;
  p.seed = kSeed;
  p.runs = {tilemm::KernelRun{c.kernel, {}}};
  p.distribution = {c.rows, c.cols, kBlock, kPanel, c.comm};
  const bool ta = c.ta == tilemm::Trans::T, tb = c.tb == tilemm::Trans::T;
  using tilemm::MatrixId;
  if (c.files) {
    const bool fortran = c.layout == tilemm::Layout::Right;
    p.a = rule_file<Scalar>(MatrixId::A, ta ? kK : kM, ta ? kM : kK, fortran, folder);
    p.b = rule_file<Scalar>(MatrixId::B, tb ? kN : kK, tb ? kK : kN, fortran, folder);
    p.c = rule_file<Scalar>(MatrixId::C, kM, kN, fortran, folder);
  }
  tilemm::Plan plan;
  plan.problem = &p;
  plan.local_launches = tilemm::local_launches(p, tilemm::default_backend());
  tilemm::distributed::SummaWorkspace<Kokkos::DefaultExecutionSpace, Scalar, Layout> ws(
      plan, MPI_COMM_WORLD);
  ws.run(0);
  const double error = ws.error();
  const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.local_c());

  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int row = me / c.cols, col = me % c.cols;
  ScaMatrix<Scalar> a(context, ta ? kK : kM, ta ? kM : kK, kBlock, row, col, c.rows, c.cols, kSeed,
                      MatrixId::A, true);
  ScaMatrix<Scalar> b(context, tb ? kN : kK, tb ? kK : kN, kBlock, row, col, c.rows, c.cols, kSeed,
                      MatrixId::B, true);
  ScaMatrix<Scalar> sc(context, kM, kN, kBlock, row, col, c.rows, c.cols, kSeed, MatrixId::C,
                       c.beta != 0);
  sca_gemm(ta ? 'T' : 'N', tb ? 'T' : 'N', kM, kN, kK, kAlpha, a, b, c.beta, sc);

  const long double eps = std::numeric_limits<Scalar>::epsilon();
  const int lld = sc.desc[8];
  bool agrees = error <= tilemm::tolerance(c.precision, kK);
  const BlockCyclic rows{kM, kBlock, c.rows, row}, cols{kN, kBlock, c.cols, col};
  for (std::size_t i = 0; i < mine.extent(0); ++i) {
    for (std::size_t j = 0; j < mine.extent(1); ++j) {
      const auto [exact, magnitude] = exact_element<Scalar>(c, rows.to_global(std::int64_t(i)),
                                                            cols.to_global(std::int64_t(j)));
      const long double bound = (kK + 2) * eps * magnitude;
      const long double got = mine(i, j), theirs = sc.local[j * lld + i];
      if (!(std::fabs(got - exact) <= bound && std::fabs(got - theirs) <= 2 * bound)) {
        agrees = false;
      }
    }
  }
  int all = agrees ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return every == 1;
}

bool check_case(const Case& c, int context, const NpyFolder& folder) {
  const bool left = c.layout == tilemm::Layout::Left;
  if (c.precision == tilemm::Precision::Float) {
    return left ? check<float, Kokkos::LayoutLeft>(c, context, folder)
                : check<float, Kokkos::LayoutRight>(c, context, folder);
  }
  return left ? check<double, Kokkos::LayoutLeft>(c, context, folder)
              : check<double, Kokkos::LayoutRight>(c, context, folder);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int me = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const std::string comm = argc > 1 ? argv[1] : "auto";
    const NpyFolder folder;
    int cases = 0;
    for (int rows = 1; rows <= ranks; ++rows) {
      if (ranks % rows != 0) continue;
      const int cols = ranks / rows;
      int context = 0;
      Cblacs_get(-1, 0, &context);
      Cblacs_gridinit(&context, "Row", rows, cols);
      for (const auto ta : {tilemm::Trans::N, tilemm::Trans::T}) {
        for (const auto tb : {tilemm::Trans::N, tilemm::Trans::T}) {
          for (const auto layout : {tilemm::Layout::Right, tilemm::Layout::Left}) {
            for (const auto precision : {tilemm::Precision::Double, tilemm::Precision::Float}) {
              for (const auto& kernel : tilemm::kernel_names()) {
                if (!tilemm::kernel_takes(kernel, precision)) continue;
                // beta = 0 (C0 poisoned: never read) and beta != 0, in turn.
                const Case c{rows,   cols,
                             ta,     tb,
                             layout, precision,
                             kernel, cases % 2 ? 0.5 : 0.0,
                             comm,   kernel == "tiled"};
                ++cases;
                if (check_case(c, context, folder)) continue;
                ++failed;
                if (me == 0) {
                  std::printf("FAILED: grid %dx%d op %s%s layout %s %s kernel %s beta %g%s\n", rows,
                              cols, to_string(ta).c_str(), to_string(tb).c_str(),
                              to_string(layout).c_str(), to_string(precision).c_str(),
                              kernel.c_str(), c.beta, c.files ? " from .npy files" : "");
                }
              }
            }
          }
        }
      }
      Cblacs_gridexit(context);
    }
    if (me == 0) std::printf("%d of %d cases agree with ScaLAPACK\n", cases - failed, cases);
  }
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
