// The tensor-tiled kernel's launch, declared apart from its source, which compiles once for each
// backend, precision, layout and operand orientation in a file of its own, generated from
// tensor_tiled/instance.cpp.in (src/CMakeLists.txt), as register-tiled's does
// (register_tiled/instances.hpp). The functions here pick the orientation a product's ops give its
// operands in its layout: a GPU runs a kernel compiled for it; a CPU, whose teams run the plain
// products lane by lane whatever the scratch order, compiles OrientationNN alone.
#pragma once

#include <type_traits>
#include <utility>

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/team_launch.hpp"
#include "tilemm/kernels/warp/operand_scratch.hpp"
#include "tilemm/types.hpp"

namespace tilemm::kernels {

/// TensorTiled<ExecSpace, Scalar, Layout>::plan for operands oriented as Orient
/// (tensor_tiled/launch.hpp).
template <class ExecSpace, class Scalar, class Layout, class Orient>
LaunchConfig plan_tensor_tiled_oriented(const LaunchRequest& request, const Extents& extents);

/// TensorTiled<ExecSpace, Scalar, Layout>::run for operands oriented as Orient; `partials`:
/// cfg.partial_elements scalars of the backend's memory, for a split K.
template <class ExecSpace, class Scalar, class Layout, class Orient>
void run_tensor_tiled_oriented(const GemmOperands<ExecSpace, Scalar, Layout>& g,
                               const LaunchConfig& cfg, Scalar* partials);

/// Calls f(Orient{}) with the orientation that ops trans_a, trans_b give the operands in Layout.
template <class Layout, class F>
decltype(auto) with_operands_orientation(Trans trans_a, Trans trans_b, F&& f) {
  constexpr bool right = std::is_same_v<Layout, Kokkos::LayoutRight>;
  const Along a = along_of_a(right != (trans_a == Trans::T));
  const Along b = along_of_b(right != (trans_b == Trans::T));
  if (a == Along::k) return b == Along::mn ? f(OrientationKN{}) : f(OrientationKK{});
  return b == Along::mn ? f(OrientationNN{}) : f(OrientationNK{});
}
/// ... the kernel's orientation on ExecSpace: that one on a GPU, OrientationNN on a CPU.
template <class ExecSpace, class Layout, class F>
decltype(auto) with_orientation(Trans trans_a, Trans trans_b, F&& f) {
  if constexpr (runs_on_cpu<ExecSpace>()) {
    return f(OrientationNN{});
  } else {
    return with_operands_orientation<Layout>(trans_a, trans_b, std::forward<F>(f));
  }
}

template <class ExecSpace, class Scalar, class Layout>
LaunchConfig plan_tensor_tiled(const LaunchRequest& request, const Extents& extents) {
  return with_orientation<ExecSpace, Layout>(extents.trans_a, extents.trans_b, [&](auto orient) {
    return plan_tensor_tiled_oriented<ExecSpace, Scalar, Layout, decltype(orient)>(request,
                                                                                   extents);
  });
}

template <class ExecSpace, class Scalar, class Layout>
void run_tensor_tiled(const GemmOperands<ExecSpace, Scalar, Layout>& g, const LaunchConfig& cfg,
                      Scalar* partials) {
  const Trans ta = g.a.is_transposed() ? Trans::T : Trans::N;
  const Trans tb = g.b.is_transposed() ? Trans::T : Trans::N;
  with_orientation<ExecSpace, Layout>(ta, tb, [&](auto orient) {
    run_tensor_tiled_oriented<ExecSpace, Scalar, Layout, decltype(orient)>(g, cfg, partials);
  });
}

}  // namespace tilemm::kernels
