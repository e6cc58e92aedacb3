// Every kernel by name (the names of kernel_names.hpp), for one backend, precision and layout.
#pragma once

#include <stdexcept>
#include <string>

#include "tilemm/kernels/kokkos_kernels.hpp"
#include "tilemm/kernels/naive.hpp"
#include "tilemm/kernels/register_tiled_instances.hpp"
#include "tilemm/kernels/tiled.hpp"

namespace tilemm::kernels {

template <class ExecSpace, class Scalar, class Layout>
struct Registry {
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;

  /// The launch `kernel` will use on this backend for a product of these extents: the request,
  /// completed with the backend's defaults and checked against its limits. Throws LaunchError when
  /// it cannot fit.
  static LaunchConfig plan(const std::string& kernel, const LaunchRequest& request,
                           const Extents& extents) {
    if (kernel == "tiled") return TiledGemm<ExecSpace, Scalar, Layout>::plan(request);
    if (kernel == "register-tiled") {
      return plan_register_tiled<ExecSpace, Scalar, Layout>(request, extents);
    }
    return {};  // naive and kokkos-kernels leave the launch to Kokkos
  }

  /// Backend memory a launch needs besides the operands: LaunchConfig::partial_elements scalars
  /// (a split K's partial C's), made once and reused run after run.
  using Partials = Kokkos::View<Scalar*, typename Operands::device_type>;

  static void run(const std::string& kernel, const LaunchConfig& cfg, const Operands& g,
                  const Partials& partials) {
    if (kernel == "naive") {
      naive(g);
    } else if (kernel == "tiled") {
      TiledGemm<ExecSpace, Scalar, Layout>::run(g, cfg);
    } else if (kernel == "register-tiled") {
      if (partials.extent(0) < cfg.partial_elements) {
        throw std::logic_error("a split K needs " + std::to_string(cfg.partial_elements) +
                               " scalars of partials; " + std::to_string(partials.extent(0)) +
                               " were made");
      }
      run_register_tiled<ExecSpace, Scalar, Layout>(g, cfg, partials.data());
    } else if (kernel == "kokkos-kernels") {
      kokkos_kernels(g);
    } else {
      throw std::logic_error("no kernel named '" + kernel + "'");
    }
  }
};

}  // namespace tilemm::kernels
