// Every kernel by name (the names of kernel_names.hpp), for one backend, precision and layout.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tilemm/kernels/kokkos_kernels.hpp"
#include "tilemm/kernels/naive.hpp"
#include "tilemm/kernels/ozaki/launch.hpp"
#include "tilemm/kernels/register_tiled/instances.hpp"
#include "tilemm/kernels/tensor_tiled/instances.hpp"
#include "tilemm/kernels/tiled.hpp"

namespace tilemm::kernels {

template <class ExecSpace, class Scalar, class Layout>
struct Registry {
  using Operands = GemmOperands<ExecSpace, Scalar, Layout>;
  static constexpr bool kDouble = std::is_same<Scalar, double>::value;

  /// The launch `kernel` will use on this backend for a product of these extents: the request,
  /// completed with the backend's defaults and checked against its limits. Throws LaunchError when
  /// it cannot fit.
  static LaunchConfig plan(const std::string& kernel, const LaunchRequest& request,
                           const Extents& extents) {
    if (kernel == "tiled") {
      return within_int(TiledGemm<ExecSpace, Scalar, Layout>::plan(request), extents);
    }
    if (kernel == "register-tiled") {
      return within_int(plan_register_tiled<ExecSpace, Scalar, Layout>(request, extents), extents);
    }
    if (kernel == "tensor-tiled") {
      return within_int(plan_tensor_tiled<ExecSpace, Scalar, Layout>(request, extents), extents);
    }
    if (kernel == "ozaki") {
      if constexpr (kDouble) {
        return within_int(ozaki::plan<ExecSpace>(request.moduli, extents), extents);
      }
      throw std::invalid_argument("kernel 'ozaki' runs in double only");
    }
    return {};  // naive and kokkos-kernels leave the launch to Kokkos
  }

  /// The launch as it will run on g's data: for ozaki, the count of moduli the data takes
  /// (ozaki::resolve; LaunchError where it needs more than the kernel has, std::domain_error for
  /// Inf or NaN); the plan's launch for the other kernels.
  static LaunchConfig resolve(const std::string& kernel, const LaunchConfig& cfg,
                              const Operands& g) {
    if constexpr (kDouble) {
      if (kernel == "ozaki") return ozaki::resolve(g, cfg);
    }
    return cfg;
  }

  /// The tiled kernels count rows, columns, K and teams in int, and a team's last tile reaches past
  /// the matrix's edge (its loads and stores are masked there): each extent plus its tile, and the
  /// teams, must stay within int, or an index would wrap and pass the masks. Only extents near
  /// 2^31 meet this (a 2^31 - 1 by 1 C is 8 GB in float).
  static LaunchConfig within_int(const LaunchConfig& cfg, const Extents& e) {
    constexpr std::int64_t kMost = std::numeric_limits<int>::max();
    const Tiling& t = cfg.tile;
    const struct {
      LaunchLimit limit;
      const char* name;
      std::int64_t extent, tile;
    } sides[] = {{LaunchLimit::M, "m", e.m, t.bm},
                 {LaunchLimit::N, "n", e.n, t.bn},
                 {LaunchLimit::K, "k", e.k, t.bk}};
    for (const auto& side : sides) {
      if (side.extent > kMost - side.tile) {
        throw LaunchError(side.limit, std::string(side.name) + " = " + std::to_string(side.extent) +
                                          " with tile " + t.to_string() + ": the last tile's " +
                                          "indices would pass " + std::to_string(kMost) +
                                          "; this tile takes " + side.name + " up to " +
                                          std::to_string(kMost - side.tile));
      }
    }
    // (A split K multiplies them: register-tiled's plan refuses that as a limit of the split.)
    const std::int64_t teams = tiles_of(t, e.m, e.n);
    if (teams > kMost) {
      throw LaunchError(LaunchLimit::Tile,
                        "tile " + t.to_string() + " on a " + std::to_string(e.m) + " x " +
                            std::to_string(e.n) + " C makes " + std::to_string(teams) +
                            " teams, more than a launch takes (" + std::to_string(kMost) + ")");
    }
    return cfg;
  }

  /// Backend memory a launch needs besides the operands: LaunchConfig::partial_elements scalars
  /// (a split K's partial tiles), made once and reused run after run.
  using Partials = Kokkos::View<Scalar*, typename Operands::device_type>;

  /// The partials of a launch that splits K: cfg.partial_elements scalars, or a logic error.
  static Scalar* partials_for(const LaunchConfig& cfg, const Partials& partials) {
    if (partials.extent(0) < cfg.partial_elements) {
      throw std::logic_error("the launch needs " + std::to_string(cfg.partial_elements) +
                             " scalars of partials; " + std::to_string(partials.extent(0)) +
                             " were made");
    }
    return partials.data();
  }

  static void run(const std::string& kernel, const LaunchConfig& cfg, const Operands& g,
                  const Partials& partials) {
    if (kernel == "naive") {
      naive(g);
    } else if (kernel == "tiled") {
      TiledGemm<ExecSpace, Scalar, Layout>::run(g, cfg);
    } else if (kernel == "register-tiled") {
      run_register_tiled<ExecSpace, Scalar, Layout>(g, cfg, partials_for(cfg, partials));
    } else if (kernel == "tensor-tiled") {
      run_tensor_tiled<ExecSpace, Scalar, Layout>(g, cfg, partials_for(cfg, partials));
    } else if (kernel == "kokkos-kernels") {
      kokkos_kernels(g);
    } else if (kernel == "ozaki") {
      if constexpr (kDouble) {
        ozaki::run(g, cfg, partials_for(cfg, partials));
      } else {
        throw std::invalid_argument("kernel 'ozaki' runs in double only");
      }
    } else {
      throw std::logic_error("no kernel named '" + kernel + "'");
    }
  }
};

}  // namespace tilemm::kernels
