// The tensor-tiled kernel's launch, declared apart from its source, which compiles once for each
// backend, precision and layout in a file of its own, generated from tensor_tiled/instance.cpp.in
// (src/CMakeLists.txt), as register-tiled's does (register_tiled_instances.hpp).
#pragma once

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/types.hpp"

namespace tilemm::kernels {

/// TensorTiled<ExecSpace, Scalar, Layout>::plan (tensor_tiled/launch.hpp).
template <class ExecSpace, class Scalar, class Layout>
LaunchConfig plan_tensor_tiled(const LaunchRequest& request, const Extents& extents);

/// TensorTiled<ExecSpace, Scalar, Layout>::run (tensor_tiled/launch.hpp); `partials`:
/// cfg.partial_elements scalars of the backend's memory, for a split K.
template <class ExecSpace, class Scalar, class Layout>
void run_tensor_tiled(const GemmOperands<ExecSpace, Scalar, Layout>& g, const LaunchConfig& cfg,
                      Scalar* partials);

}  // namespace tilemm::kernels
