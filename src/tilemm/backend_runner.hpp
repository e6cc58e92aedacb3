// The run of one problem on one Kokkos execution space:
//   allocate -> fill (random or .npy; C poisoned when beta == 0) -> double-precision reference ->
//   for each kernel: poison C, run, validate; warm up; time the repeats; validate the last run.
// Compiled once per backend (backends/*.cpp), so a single binary serves a backend comparison.
#pragma once

#include <chrono>
#include <cmath>
#include <new>
#include <stdexcept>
#include <string>

#include "tilemm/errors.hpp"
#include "tilemm/kernels/registry.hpp"
#include "tilemm/matrices.hpp"
#include "tilemm/npy.hpp"
#include "tilemm/output_paths.hpp"
#include "tilemm/runner.hpp"
#include "tilemm/validate.hpp"

namespace tilemm {

/// What runner.cpp needs from each backend, as plain functions.
struct BackendOps {
  std::string name;
  LaunchConfig (*plan)(const Problem&, const KernelRun&);
  std::size_t (*bytes_needed)(const Problem&);
  bool (*run)(const Plan&, const std::string& backend, const std::function<void(const Result&)>&,
              const StopFlag*);
  int (*concurrency)();
  bool on_host = true;
};

template <class ExecSpace>
struct BackendRunner {
  /// Calls f(Scalar{}, Layout{}) with the problem's precision and layout as types.
  template <class F>
  static auto with_types(const Problem& p, F&& f) {
    const bool right = p.layout == Layout::Right;
    if (p.precision == Precision::Float) {
      return right ? f(float{}, Kokkos::LayoutRight{}) : f(float{}, Kokkos::LayoutLeft{});
    }
    return right ? f(double{}, Kokkos::LayoutRight{}) : f(double{}, Kokkos::LayoutLeft{});
  }

  static LaunchConfig plan(const Problem& p, const KernelRun& run) {
    return with_types(p, [&](auto scalar, auto layout) {
      return kernels::Registry<ExecSpace, decltype(scalar), decltype(layout)>::plan(
          run.kernel, run.launch, {p.m, p.n, p.k});
    });
  }

  /// A, B, C0, C in the problem's precision, the reference C and norms in double, and the double
  /// copies of A and B that a float problem's reference needs while it is computed.
  static std::size_t bytes_needed(const Problem& p) {
    const std::size_t s = p.scalar_bytes();
    const std::size_t mk = p.m * p.k, kn = p.k * p.n, mn = p.m * p.n;
    std::size_t bytes = s * (mk + kn + 2 * mn) + 8 * (mn + p.m + p.n);
    if (p.precision == Precision::Float) bytes += 8 * (mk + kn);
    return bytes;
  }

  static bool run(const Plan& plan, const std::string& backend,
                  const std::function<void(const Result&)>& on_result, const StopFlag* stop) {
    return with_types(*plan.problem, [&](auto scalar, auto layout) {
      return run_typed<decltype(scalar), decltype(layout)>(plan, backend, on_result, stop);
    });
  }

  static int concurrency() { return ExecSpace().concurrency(); }

  static BackendOps ops(const std::string& name) {
    return {name, &plan, &bytes_needed, &run, &concurrency, kernels::runs_on_cpu<ExecSpace>()};
  }

 private:
  template <class Matrix>
  static void fill(const Matrix& x, const std::optional<NpySource>& file, const Problem& p,
                   MatrixId id) {
    if (!file) {
      fill_random<ExecSpace>(x, p.seed, id);
      return;
    }
    const npy::Header header = npy::read_header(file->path);
    if (header.shape[0] != file->rows || header.shape[1] != file->cols) {
      throw InputError(p.origin.where() + ": '" + file->path + "' changed since the spec was read");
    }
    const std::vector<double> values = npy::read_data(file->path, header);
    for (std::size_t e = 0; e < values.size(); ++e) {
      if (!std::isfinite(values[e])) {
        throw InputError(p.origin.where() + ": '" + file->path + "' holds a NaN or Inf (element " +
                         std::to_string(e) + " in file order); tilemm multiplies finite matrices");
      }
    }
    copy_from_file_order(values, header.fortran_order, x);
  }

  template <class Scalar, class Layout>
  static bool run_typed(const Plan& plan, const std::string& backend,
                        const std::function<void(const Result&)>& on_result, const StopFlag* stop) {
    using Operands = kernels::GemmOperands<ExecSpace, Scalar, Layout>;
    using Matrix = typename Operands::matrix;
    using Registry = kernels::Registry<ExecSpace, Scalar, Layout>;
    const Problem& p = *plan.problem;
    const bool ta = p.trans_a == Trans::T, tb = p.trans_b == Trans::T;
    const auto no_init = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
    };

    Matrix A, B, C0, C;
    try {
      A = Matrix(no_init("tilemm::A"), ta ? p.k : p.m, ta ? p.m : p.k);
      B = Matrix(no_init("tilemm::B"), tb ? p.n : p.k, tb ? p.k : p.n);
      C0 = Matrix(no_init("tilemm::C0"), p.m, p.n);
      C = Matrix(no_init("tilemm::C"), p.m, p.n);
    } catch (const std::bad_alloc&) {
      throw RuntimeFailure(p.origin.where() + ": allocation of " +
                           std::to_string(plan.bytes_needed) + " bytes failed");
    }
    fill(A, p.a, p, MatrixId::A);
    fill(B, p.b, p, MatrixId::B);
    if (p.beta == 0) {
      fill_nan<ExecSpace>(C0);  // C is write-only: poison shows any read or any element skipped
    } else {
      fill(C0, p.c, p, MatrixId::C);
    }

    Operands g;
    g.a = {A, ta};
    g.b = {B, tb};
    g.c = C0;
    g.alpha = static_cast<Scalar>(p.alpha);
    g.beta = static_cast<Scalar>(p.beta);
    const auto reference = make_reference(g);
    g.c = C;

    const double flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
    const auto run_once = [&](const std::string& kernel, const LaunchConfig& cfg) {
      Kokkos::deep_copy(C, C0);
      Kokkos::fence();
      const auto start = std::chrono::steady_clock::now();
      Registry::run(kernel, cfg, g);
      Kokkos::fence();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const auto stopped = [&] {
      return stop && *stop;
    };

    for (std::size_t r = 0; r < p.runs.size(); ++r) {
      const KernelRun& kr = p.runs[r];
      Result res;
      res.problem = &p;
      res.kernel = kr.kernel;
      res.backend = backend;
      res.launch = plan.launches[r];
      res.tolerance = tolerance(p.precision, p.k);

      if (stopped()) return false;
      run_once(kr.kernel, res.launch);
      const double first_error = max_scaled_error(reference, C, C0);
      for (int w = 0; w < p.warmup && !stopped(); ++w) run_once(kr.kernel, res.launch);
      std::vector<double> samples;
      for (int i = 0; i < p.repeats && !stopped(); ++i)
        samples.push_back(run_once(kr.kernel, res.launch));
      if (stopped()) return false;
      // A race shows as an error that moves between runs: check the last timed run as well.
      res.error = std::max(first_error, max_scaled_error(reference, C, C0));
      res.passed = res.error <= res.tolerance;
      res.time = TimeStats::of(samples);
      res.gflops = flops / res.time.median * 1e-9;
      res.gflops_best = flops / res.time.min * 1e-9;

      if (!p.c_out.empty()) {
        res.c_out = expand_path_template(p.c_out, p, kr, backend);
        const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
        npy::write(res.c_out, host.data(), p.m, p.n, p.layout == tilemm::Layout::Left);
      }
      on_result(res);
    }
    return true;
  }
};

}  // namespace tilemm
