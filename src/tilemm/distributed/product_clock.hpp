// The time a rank's local products take within one SUMMA run, for the share of the run they do
// not cover (comm_exposed, summa.hpp). The same measure for every communicator:
//   on a backend whose kernels the host runs (OpenMP, Serial), the host's clock from each product's
//   launch to its end (a fence, which costs nothing there);
//   on CUDA, CUDA events recorded on the kernels' stream before and after each product, read once
//   after the run's last fence, so that the host never waits between products and the broadcasts
//   (NCCL's on their own stream, or MPI's) overlap the products as they do untimed.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tilemm/errors.hpp"

namespace tilemm::distributed {

template <class ExecSpace>
class ProductClock {
 public:
  /// Marks the start of step s's product.
  void start(std::size_t /*s*/) { started_ = std::chrono::steady_clock::now(); }
  /// Marks the end of step s's product.
  void stop(std::size_t /*s*/) {
    ExecSpace().fence();
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  /// The products' time since the last call, in seconds, once the backend is fenced.
  double take() { return std::exchange(total_, 0.0); }

 private:
  std::chrono::steady_clock::time_point started_;
  double total_ = 0;
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
class ProductClock<Kokkos::Cuda> {
 public:
  ProductClock() = default;
  ProductClock(const ProductClock&) = delete;
  ProductClock& operator=(const ProductClock&) = delete;
  ~ProductClock() {
    for (const auto& [before, after] : events_) {
      cudaEventDestroy(before);
      cudaEventDestroy(after);
    }
  }

  void start(std::size_t s) {
    while (events_.size() <= s) {
      std::pair<cudaEvent_t, cudaEvent_t> pair{};
      check(cudaEventCreate(&pair.first));
      check(cudaEventCreate(&pair.second));
      events_.push_back(pair);
    }
    check(cudaEventRecord(events_[s].first, Kokkos::Cuda().cuda_stream()));
    used_ = std::max(used_, s + 1);
  }
  void stop(std::size_t s) {
    check(cudaEventRecord(events_[s].second, Kokkos::Cuda().cuda_stream()));
  }

  double take() {
    double total = 0;
    for (std::size_t s = 0; s < used_; ++s) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, events_[s].first, events_[s].second));
      total += 1e-3 * ms;
    }
    used_ = 0;
    return total;
  }

 private:
  static void check(cudaError_t status) {
    if (status != cudaSuccess) {
      throw RuntimeFailure(std::string("timing the local products: ") + cudaGetErrorString(status));
    }
  }
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> events_;
  std::size_t used_ = 0;  // the steps timed since the last take()
};
#endif

}  // namespace tilemm::distributed
