// One GEMM over the ranks of an MPI run, SUMMA on a Pr x Pc process grid:
//
//   C is m x n, op(A) m x k and op(B) k x n, each dealt 2D block-cyclic (block_cyclic.hpp) over
//   the grid in blocks of NB; rank (r, c) holds the blocks of C, op(A) and op(B) whose block row
//   is r mod Pr and block column c mod Pc. A transposed A or B is held as stored: a rank's piece
//   of op(A) is a piece of A (k x m) in A's own orientation, and the local product reads it
//   transposed.
//   for each K step [k0, k0 + kb) (panels of `panel`, cut at block edges, so one rank column owns
//   each step's columns of op(A) and one rank row its rows of op(B)):
//     the owner column copies its columns of op(A) into a panel and broadcasts it along its
//       process row; the owner row copies its rows of op(B) and broadcasts them down its column
//       (MPI_Ibcast on the row and column communicators); an owner whose piece holds its panel
//       contiguously broadcasts from the piece, uncopied;
//     the next step's broadcasts are posted before this step's local product runs, into the other
//       of two panel buffers, so that they overlap it;
//     C_local = alpha * Apanel * Bpanel + beta_s * C_local, by tilemm's kernel (the registry),
//       with beta_s the problem's beta at the first step and 1 after it, in the launch the plan
//       chose for this rank's piece and that step's length before any problem ran (plan.cpp).
//
// On a backend whose memory the host cannot reach (CUDA), panels go through host buffers: the
// owner copies its panel to the host, MPI broadcasts host memory, the others copy it back; or MPI
// broadcasts the GPU buffers themselves where the run asked for it (--gpu-aware-mpi); or, where
// the build has NCCL, NCCL broadcasts them between the GPUs (nccl_broadcasts.hpp).
// Validation is per rank: its piece of C against a double-precision gemm of its rows of op(A) and
// columns of op(B) (validate.hpp), generated whole by the value-by-position rule (or read from the
// problem's .npy files, each rank its own rows and columns).
// The run's time is the slowest rank's, from a barrier to its last product's end; the share of it
// that rank's local products did not cover (product_clock.hpp) is the exposed communication.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "tilemm/distributed/local_matrices.hpp"
#include "tilemm/distributed/nccl_broadcasts.hpp"
#include "tilemm/distributed/product_clock.hpp"
#include "tilemm/distributed/world.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/kernels/registry.hpp"
#include "tilemm/npy.hpp"
#include "tilemm/plan.hpp"
#include "tilemm/result.hpp"
#include "tilemm/session.hpp"
#include "tilemm/test_hooks.hpp"
#include "tilemm/validate.hpp"

namespace tilemm::distributed {

template <class ExecSpace, class Scalar, class Layout>
class SummaWorkspace final : public Session {
 public:
  using Registry = kernels::Registry<ExecSpace, Scalar, Layout>;
  using Operands = typename Registry::Operands;
  using Matrix = typename Operands::matrix;
  using Flat = Kokkos::View<Scalar*, typename Operands::device_type>;
  using HostFlat = Kokkos::View<Scalar*, Kokkos::HostSpace>;
#ifdef KOKKOS_ENABLE_CUDA
  static constexpr bool kOnCuda = std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
  static constexpr bool kOnCuda = false;
#endif
#ifdef TILEMM_HAVE_NCCL
  static constexpr bool kNcclBuild = true;
#else
  static constexpr bool kNcclBuild = false;
#endif
  static constexpr bool kHostMemory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

  SummaWorkspace(const Plan& plan, MPI_Comm world) : plan_(plan), p_(*plan.problem), world_(world) {
    int ranks = 1;
    MPI_Comm_size(world, &ranks);
    check_spread(p_, ranks, kOnCuda && kNcclBuild);  // as the plan checked it
    const auto [rows, cols] = grid_of(p_, ranks);
    grid_ = std::make_unique<ProcessGrid>(world, rows, cols);
    choose_comm(p_.distribution.comm);
    std::tie(block_, panel_) = block_and_panel(p_);
    m_ = {p_.m, block_, rows, grid_->row()};
    n_ = {p_.n, block_, cols, grid_->col()};
    ka_ = {p_.k, block_, cols, grid_->col()};  // op(A)'s columns, over the grid's columns
    kb_ = {p_.k, block_, rows, grid_->row()};  // op(B)'s rows, over the grid's rows
    steps_ = k_steps(p_);
    allocate_and_fill();
  }

  double run(std::size_t r) override {
    Kokkos::deep_copy(c_, c0_);
    Kokkos::fence();
    MPI_Barrier(world_);
    const auto start = std::chrono::steady_clock::now();
    post(0, 0);
    for (std::size_t s = 0; s < steps_.size(); ++s) {
      receive(s % 2);
      if (s + 1 < steps_.size()) post(s + 1, (s + 1) % 2);
      multiply(r, s);
    }
    Kokkos::fence();
    const double mine = seconds_since(start);
    wrong_from_run_.after_run(r, c_);
    const auto [slowest, rank] = max_and_rank(mine);
    exposed_.push_back(exposed_share(mine, clock_.take(), slowest, rank));
    return slowest;
  }

  double error() const override {
    const double mine = has_c_ ? max_scaled_error(reference_, c_, c0_) : 0.0;
    return max_over_ranks(mine);
  }

  double freivalds_error() const override {
    const double mine =
        has_c_ ? freivalds_->error(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_))
               : 0.0;
    return max_over_ranks(mine);
  }

  bool reference_valid() const override {
    return max_over_ranks(reference_valid_ ? 0.0 : 1.0) == 0.0;
  }

  void write_c(const std::string& path) const override {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    const bool left = p_.layout == tilemm::Layout::Left;
    const auto whole = gather_whole<Scalar>(world_, *grid_, host, p_.m, p_.n, block_, left);
    int me = 0;
    MPI_Comm_rank(world_, &me);
    if (me == 0) npy::write(path, whole.data(), p_.m, p_.n, left);
  }

  std::optional<DistributedFigures> distributed(std::size_t r, std::size_t timed) const override {
    DistributedFigures f;
    MPI_Comm_size(world_, &f.ranks);
    f.grid = grid_->text();
    f.block = block_;
    f.panel = panel_;
    f.comm = comm_;
    f.distribution = Spread::Summa;
    const std::size_t from = exposed_.size() - std::min(timed, exposed_.size());
    f.comm_exposed = median_of({exposed_.begin() + from, exposed_.end()});
    f.local_launch = plan_.local_launches.at({r, steps_.front().second});
    return f;
  }

  /// This rank's piece of C after the last run.
  const Matrix& local_c() const {
    return c_;
  }

 private:
  /// The broadcasts' library: NCCL for `nccl`, and for `auto` on GPUs of a build with NCCL where
  /// each rank has a GPU of its own; else MPI.
  void choose_comm(const std::string& asked) {
#ifdef TILEMM_HAVE_NCCL
    if constexpr (kOnCuda) {
      const bool own = gpus_of_their_own(world_, ExecSpace().cuda_device());
      if (asked == "nccl" || (asked == "auto" && own)) {
        nccl_ = std::make_unique<NcclBroadcasts>(*grid_, ExecSpace().cuda_stream());
        comm_ = "nccl";
        return;
      }
    }
#endif
    // GPU data goes to MPI through host buffers, unless the run asked for an MPI that takes GPU
    // memory (world.hpp, request_device_buffers).
    staged_ = !kHostMemory && !device_buffers();
    comm_ = kHostMemory ? "mpi" : staged_ ? "mpi (host-staged)" : "mpi (device buffers)";
  }

  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /// The share of a run's time (`slowest`, the time of rank `slowest_rank`) that the local products
  /// did not cover on that rank: its time (`mine` there) less its products' (`products`), over the
  /// run's time. The same for every communicator; a collective.
  static double exposed_share(double mine, double products, double slowest, int slowest_rank) {
    const double uncovered = rank() == slowest_rank ? std::max(0.0, mine - products) : 0.0;
    return slowest > 0 ? max_over_ranks(uncovered) / slowest : 0.0;
  }

  static Matrix allocate(const char* label, std::int64_t rows, std::int64_t cols) {
    return Matrix(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows, cols);
  }

  void allocate_and_fill() {
    const bool ta = p_.trans_a == Trans::T, tb = p_.trans_b == Trans::T;
    const std::int64_t lm = m_.local(), ln = n_.local(), la = ka_.local(), lb = kb_.local();
    try {
      // A test's hook (tests/distributed): this rank's allocation refused, as a full memory does.
      if (std::getenv("TILEMM_TEST_REFUSE_ALLOCATION")) throw std::bad_alloc();
      a_ = ta ? allocate("tilemm::A", la, lm) : allocate("tilemm::A", lm, la);
      b_ = tb ? allocate("tilemm::B", ln, lb) : allocate("tilemm::B", lb, ln);
      c0_ = allocate("tilemm::C0", lm, ln);
      c_ = allocate("tilemm::C", lm, ln);
      for (int slot = 0; slot < 2; ++slot) {
        a_panel_[slot] = Flat("tilemm::A_panel", lm * panel_);
        b_panel_[slot] = Flat("tilemm::B_panel", ln * panel_);
        if (staged_) {
          a_host_[slot] = HostFlat("tilemm::A_panel_host", lm * panel_);
          b_host_[slot] = HostFlat("tilemm::B_panel_host", ln * panel_);
        }
      }
      if (const std::size_t partials = plan_.partial_elements(); partials > 0)
        partials_ = typename Registry::Partials("tilemm::partials", partials);
    } catch (const std::bad_alloc&) {
      throw RuntimeFailure(p_.origin.where() + ": allocation of this rank's piece failed");
    }
    fill_operands(a_, b_, ka_, kb_, /*as_op=*/false);
    if (p_.beta == 0) {
      fill_nan<ExecSpace>(c0_);  // C is write-only: poison shows any read or any element skipped
    } else {
      fill_matrix(c0_, MatrixId::C, p_.c, m_, n_, p_.n, false);
    }
    has_c_ = lm > 0 && ln > 0;
    if (has_c_) make_local_reference();
  }

  /// Fills `a` with this rank's rows of op(A) at the K indices `ka` holds, and `b` with its
  /// columns of op(B) at those of `kb`: as stored (a transposed A's piece is k x m: A's rows are
  /// op(A)'s columns), or with `as_op` in op's orientation.
  void fill_operands(const Matrix& a, const Matrix& b, const BlockCyclic& ka, const BlockCyclic& kb,
                     bool as_op) const {
    const bool ta = p_.trans_a == Trans::T, tb = p_.trans_b == Trans::T;
    if (ta) {
      fill_matrix(a, MatrixId::A, p_.a, ka, m_, p_.m, as_op);
    } else {
      fill_matrix(a, MatrixId::A, p_.a, m_, ka, p_.k, false);
    }
    if (tb) {
      fill_matrix(b, MatrixId::B, p_.b, n_, kb, p_.k, as_op);
    } else {
      fill_matrix(b, MatrixId::B, p_.b, kb, n_, p_.n, false);
    }
  }

  /// x = this rank's piece (rows `rows`, columns `cols`) of stored matrix `id`, which has `cols`
  /// columns in all: from its .npy file where the spec names one, else by the value-by-position
  /// rule; transposed in x with `transposed`.
  void fill_matrix(const Matrix& x, MatrixId id, const std::optional<NpySource>& file,
                   const BlockCyclic& rows, const BlockCyclic& cols, std::int64_t global_cols,
                   bool transposed) const {
    if (file) {
      read_piece<ExecSpace>(x, *file, rows, cols, transposed);
    } else {
      fill_piece<ExecSpace>(x, p_.seed, id, LocalPiece::of(rows, cols, global_cols), transposed);
    }
  }

  /// The reference of this rank's C: its rows of op(A) (all of K) times its columns of op(B).
  void make_local_reference() {
    const BlockCyclic all_k{p_.k, p_.k, 1, 0};
    Matrix a_rows = allocate("tilemm::A_rows", m_.local(), p_.k);
    Matrix b_cols = allocate("tilemm::B_cols", p_.k, n_.local());
    fill_operands(a_rows, b_cols, all_k, all_k, /*as_op=*/true);
    reference_ = make_reference(Operands::of(a_rows, false, b_cols, false, c0_, p_.alpha, p_.beta));
    // Freivalds' check of this rank's C over the same rows and columns (validate.hpp), which also
    // tells whether the reference from the vendor's BLAS can be trusted.
    freivalds_.emplace(
        make_freivalds<Scalar>(a_rows, false, b_cols, false, c0_, p_.alpha, p_.beta, p_.seed));
    reference_valid_ = reference_passes(*freivalds_, reference_.c, p_.k);
  }

  /// The panels of step s as matrices (op(A)'s columns, m_loc x kb, or kb x m_loc as stored when A
  /// is transposed; op(B)'s rows): on the rank that owns them, where its piece holds them in one
  /// contiguous run in the panel's own shape (op(A)'s columns of a column-major piece or a
  /// transposed A's rows of a row-major one; op(B)'s rows of a row-major piece or a transposed B's
  /// columns of a column-major one), views of the piece itself, which the broadcast sends uncopied;
  /// else slot's buffers.
  std::pair<Matrix, Matrix> panels(std::size_t s, int slot) const {
    const auto [k0, kb] = steps_[s];
    const std::int64_t lm = m_.local(), ln = n_.local();
    const bool ta = p_.trans_a == Trans::T, tb = p_.trans_b == Trans::T;
    constexpr bool left = std::is_same<Layout, Kokkos::LayoutLeft>::value;
    Scalar* a = a_panel_[slot].data();
    Scalar* b = b_panel_[slot].data();
    if (ka_.owner(k0) == grid_->col() && ta != left) a = a_.data() + ka_.to_local(k0) * lm;
    if (kb_.owner(k0) == grid_->row() && tb == left) b = b_.data() + kb_.to_local(k0) * ln;
    return {ta ? Matrix(a, kb, lm) : Matrix(a, lm, kb), tb ? Matrix(b, ln, kb) : Matrix(b, kb, ln)};
  }

  /// Copies step s's panels out of the owners' pieces (where panels() gives slot's buffers) and
  /// starts their broadcasts into `slot`.
  void post(std::size_t s, int slot) {
    const std::int64_t k0 = steps_[s].first;
    const bool ta = p_.trans_a == Trans::T, tb = p_.trans_b == Trans::T;
    const int a_root = ka_.owner(k0), b_root = kb_.owner(k0);
    const auto [a, b] = panels(s, slot);
    if (a_root == grid_->col() && a.data() == a_panel_[slot].data()) {
      const std::int64_t l = ka_.to_local(k0);
      copy_panel<ExecSpace>(a_, ta ? l : 0, ta ? 0 : l, a);
    }
    if (b_root == grid_->row() && b.data() == b_panel_[slot].data()) {
      const std::int64_t l = kb_.to_local(k0);
      copy_panel<ExecSpace>(b_, tb ? 0 : l, tb ? l : 0, b);
    }
#ifdef TILEMM_HAVE_NCCL
    if (nccl_) {
      nccl_->post(slot, a.data(), a.size(), a_root, b.data(), b.size(), b_root);
      posted_[slot] = s;
      return;
    }
#endif
    ExecSpace().fence();
    const int a_count = mpi_count(a.size(), "an A panel"),
              b_count = mpi_count(b.size(), "a B panel");
    Scalar* a_buffer = a.data();
    Scalar* b_buffer = b.data();
    if (staged_) {
      a_buffer = a_host_[slot].data();
      b_buffer = b_host_[slot].data();
      if (a_root == grid_->col()) stage(a, a_host_[slot], true);
      if (b_root == grid_->row()) stage(b, b_host_[slot], true);
    }
    MPI_Ibcast(a_buffer, a_count, mpi_type<Scalar>(), a_root, grid_->row_comm(),
               &requests_[slot][0]);
    MPI_Ibcast(b_buffer, b_count, mpi_type<Scalar>(), b_root, grid_->col_comm(),
               &requests_[slot][1]);
    posted_[slot] = s;
  }

  /// Copies between a panel and its host buffer (to the host with `to_host`).
  static void stage(const Matrix& panel, const HostFlat& host, bool to_host) {
    const Flat device(panel.data(), panel.size());
    const auto part = Kokkos::subview(host, std::pair<std::size_t, std::size_t>(0, panel.size()));
    if (to_host) {
      Kokkos::deep_copy(part, device);
    } else {
      Kokkos::deep_copy(device, part);
    }
  }

  /// Waits for the broadcasts into `slot`; staged through the host, copies the received panels to
  /// the device.
  void receive(int slot) {
#ifdef TILEMM_HAVE_NCCL
    if (nccl_) return nccl_->receive(slot);
#endif
    MPI_Waitall(2, requests_[slot].data(), MPI_STATUSES_IGNORE);
    if (staged_) {
      const auto [a, b] = panels(posted_[slot], slot);
      if (ka_.owner(steps_[posted_[slot]].first) != grid_->col()) stage(a, a_host_[slot], false);
      if (kb_.owner(steps_[posted_[slot]].first) != grid_->row()) stage(b, b_host_[slot], false);
    }
  }

  /// C_local = alpha * Apanel * Bpanel + beta_s * C_local for step s, by kernel run r.
  void multiply(std::size_t r, std::size_t s) {
    if (!has_c_) return;
    const auto [a, b] = panels(s, s % 2);
    const Operands g = Operands::of(a, p_.trans_a == Trans::T, b, p_.trans_b == Trans::T, c_,
                                    p_.alpha, s == 0 ? p_.beta : 1.0);
    clock_.start(s);
    Registry::run(p_.runs[r].kernel, plan_.local_launches.at({r, steps_[s].second}), g, partials_);
    clock_.stop(s);
  }

  const Plan& plan_;
  const Problem& p_;
  MPI_Comm world_;
  std::unique_ptr<ProcessGrid> grid_;
  std::int64_t block_ = 0, panel_ = 0;
  BlockCyclic m_, n_, ka_, kb_;
  std::vector<std::pair<std::int64_t, std::int64_t>> steps_;  // K steps: first index, length
  Matrix a_, b_, c0_, c_;
  std::array<Flat, 2> a_panel_, b_panel_;
  std::array<HostFlat, 2> a_host_, b_host_;
  std::array<std::array<MPI_Request, 2>, 2> requests_;
  std::array<std::size_t, 2> posted_{};
  typename Registry::Partials partials_;
  bool has_c_ = false;
  WrongFromRun wrong_from_run_{p_.runs.size()};  // a test's hook (test_hooks.hpp)
  Reference<ExecSpace, Layout> reference_;
  std::optional<Freivalds> freivalds_;
  bool reference_valid_ = true;    // this rank's reference passes Freivalds' check
  ProductClock<ExecSpace> clock_;  // the local products' time in a run
  std::vector<double> exposed_;    // per run: exposed_share()
  std::string comm_;               // the broadcasts' library, as results name it
  bool staged_ = false;            // MPI broadcasts GPU data through host buffers
#ifdef TILEMM_HAVE_NCCL
  std::unique_ptr<NcclBroadcasts> nccl_;  // NCCL's communicators and stream, when it broadcasts
#endif
};

}  // namespace tilemm::distributed
