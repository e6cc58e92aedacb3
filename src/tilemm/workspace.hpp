// The workspace: a planned problem on one Kokkos execution space. Allocate A, B, the initial C0
// and the C kernels write; fill them (random or .npy; C0 poisoned when beta == 0); compute the
// double-precision reference and prepare Freivalds' check (validate.hpp). Kernels then run on it
// again and again (runner.cpp times and validates them).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "tilemm/errors.hpp"
#include "tilemm/kernels/registry.hpp"
#include "tilemm/matrices.hpp"
#include "tilemm/npy.hpp"
#include "tilemm/plan.hpp"
#include "tilemm/session.hpp"
#include "tilemm/test_hooks.hpp"
#include "tilemm/validate.hpp"

namespace tilemm {

/// A problem on ExecSpace in the precision and layout of Scalar and Layout: A, B, the initial C0
/// and the C kernels write, filled (random or .npy; C0 poisoned with NaN when beta == 0, since C
/// must not be read then), and the double-precision reference.
template <class ExecSpace, class Scalar, class Layout>
class Workspace final : public Session {
 public:
  using Operands = kernels::GemmOperands<ExecSpace, Scalar, Layout>;
  using Matrix = typename Operands::matrix;
  using Registry = kernels::Registry<ExecSpace, Scalar, Layout>;
  using Partials = typename Registry::Partials;

  explicit Workspace(const Plan& plan) : plan_(plan), p_(*plan.problem) {
    const bool ta = p_.trans_a == Trans::T, tb = p_.trans_b == Trans::T;
    try {
      a_ = allocate("tilemm::A", ta ? p_.k : p_.m, ta ? p_.m : p_.k);
      b_ = allocate("tilemm::B", tb ? p_.n : p_.k, tb ? p_.k : p_.n);
      c0_ = allocate("tilemm::C0", p_.m, p_.n);
      c_ = allocate("tilemm::C", p_.m, p_.n);
      if (const std::size_t partials = plan.partial_elements(); partials > 0) {  // a split K
        partials_ =
            Partials(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tilemm::partials"), partials);
      }
    } catch (const std::bad_alloc&) {
      throw RuntimeFailure(p_.origin.where() + ": allocation of " +
                           std::to_string(plan.bytes_needed) + " bytes failed");
    }
    fill(a_, p_.a, MatrixId::A);
    fill(b_, p_.b, MatrixId::B);
    if (p_.beta == 0) {
      fill_nan<ExecSpace>(c0_);  // C is write-only: poison shows any read or any element skipped
    } else {
      fill(c0_, p_.c, MatrixId::C);
    }
    g_ = Operands::of(a_, ta, b_, tb, c0_, p_.alpha, p_.beta);
    reference_ = make_reference(g_);
    g_.c = c_;
    freivalds_.emplace(make_freivalds<Scalar>(a_, ta, b_, tb, c0_, p_.alpha, p_.beta, p_.seed));
    reference_valid_ = reference_passes(*freivalds_, reference_.c, p_.k);
    resolve_launches();
  }

  double run(std::size_t r) override {
    Kokkos::deep_copy(c_, c0_);
    Kokkos::fence();
    const auto start = std::chrono::steady_clock::now();
    Registry::run(p_.runs.at(r).kernel, launches_.at(r), g_, partials_);
    Kokkos::fence();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    wrong_from_run_.after_run(r, c_);
    return seconds;
  }

  std::optional<LaunchConfig> launch(std::size_t r) const override { return launches_.at(r); }

  double error() const override { return max_scaled_error(reference_, c_, c0_); }

  bool reference_valid() const override { return reference_valid_; }

  double freivalds_error() const override {
    return freivalds_->error(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_));
  }

  void write_c(const std::string& path) const override {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    npy::write(path, host.data(), p_.m, p_.n, p_.layout == tilemm::Layout::Left);
  }

 private:
  /// Each run's launch as it will run on this data (Registry::resolve: ozaki's count of moduli),
  /// before anything is timed; data that needs more moduli than ozaki has is refused here, by the
  /// key that sets them.
  void resolve_launches() {
    launches_ = plan_.launches;
    for (std::size_t r = 0; r < launches_.size(); ++r) {
      try {
        launches_[r] = Registry::resolve(p_.runs[r].kernel, launches_[r], g_);
      } catch (const kernels::LaunchError& e) {
        throw InputError(p_.origin.where() + ": key '" + spec_key(e.limit()) + "': kernel '" +
                         p_.runs[r].kernel + "': " + e.what());
      }
    }
  }

  static Matrix allocate(const char* label, std::int64_t rows, std::int64_t cols) {
    return Matrix(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows, cols);
  }

  void fill(const Matrix& x, const std::optional<NpySource>& file, MatrixId id) const {
    if (!file) {
      fill_random<ExecSpace>(x, p_.seed, id);
      return;
    }
    // The bytes the spec's checks read and hashed, converted in pieces into the host's copy of x;
    // unless the file was written in place since (before the conversion, a file cut short would
    // end the process with SIGBUS; after it, the values converted may be others).
    npy::check_unchanged(*file->file, file->path);
    const auto host = Kokkos::create_mirror_view(x);
    const auto take = [&](const double* values, std::size_t first, std::size_t count) {
      for (std::size_t e = first; e < first + count; ++e) {
        const auto [i, j] = npy::file_order_position(static_cast<std::int64_t>(e), file->rows,
                                                     file->cols, file->fortran_order);
        host(i, j) = static_cast<Scalar>(values[e - first]);
      }
      return true;
    };
    npy::for_each_piece(*file->file, take);
    npy::check_unchanged(*file->file, file->path);
    Kokkos::deep_copy(x, host);
  }

  const Plan& plan_;
  const Problem& p_;
  Matrix a_, b_, c0_, c_;
  Partials partials_;                   // a split K's partial tiles, ozaki's residues
  std::vector<LaunchConfig> launches_;  // the plan's, as resolved on the data
  Operands g_;
  Reference<ExecSpace, Layout> reference_;
  std::optional<Freivalds> freivalds_;
  bool reference_valid_ = true;
  WrongFromRun wrong_from_run_{p_.runs.size()};  // a test's hook (test_hooks.hpp)
};

}  // namespace tilemm
