// The Serial backend: the registry's functions (backend_runner.hpp) for Kokkos::Serial, when this
// Kokkos build has it.
#include "tilemm/backend_runner.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tilemm {
#ifdef KOKKOS_ENABLE_SERIAL
namespace {

using Runner = BackendRunner<Kokkos::Serial>;

/// Kokkos::Serial is one thread, but the BLAS behind `kokkos-kernels` may run threads of its own:
/// an OpenMP-threaded OpenBLAS takes OpenMP's thread count, and the baseline would then be timed
/// on every core beside kernels timed on one. A serial session holds that count at 1 and gives
/// the caller's back when it ends, so that whatever the process runs next has its own.
class OneOpenMPThread final : public Session {
 public:
  explicit OneOpenMPThread(const Plan& plan) : inner_(Runner::prepare(plan)) {}
  double run(std::size_t r) override { return inner_->run(r); }
  double error() const override { return inner_->error(); }
  double freivalds_error() const override { return inner_->freivalds_error(); }
  bool reference_valid() const override { return inner_->reference_valid(); }
  void write_c(const std::string& path) const override { inner_->write_c(path); }

 private:
  /// OpenMP's thread count held at 1 while it lives (first member: set before the reference).
  struct HeldAtOne {
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    HeldAtOne() {
      omp_set_num_threads(1);
    }
    ~HeldAtOne() {
      omp_set_num_threads(saved);
    }
#endif
  } held_;
  std::unique_ptr<Session> inner_;
};

std::unique_ptr<Session> prepare_on_one_thread(const Plan& plan) {
  return std::make_unique<OneOpenMPThread>(plan);
}

}  // namespace

BackendOps serial_backend() {
  BackendOps ops = Runner::ops("serial");
  ops.prepare = &prepare_on_one_thread;
  return ops;
}
#endif
}  // namespace tilemm
