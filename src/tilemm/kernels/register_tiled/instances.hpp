// The register-tiled kernel's launch, declared apart from its source: its instances are most of a
// build, so each backend's, precision's and layout's compile in a file of their own, generated
// from register_tiled/instance.cpp.in (src/CMakeLists.txt), in parallel; the files that launch it
// do not compile it again, nor do those that include register_tiled/kernel.hpp for its constants.
#pragma once

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/types.hpp"

namespace tilemm::kernels {

/// RegisterTiled<ExecSpace, Scalar, Layout>::plan (register_tiled/launch.hpp).
template <class ExecSpace, class Scalar, class Layout>
LaunchConfig plan_register_tiled(const LaunchRequest& request, const Extents& extents);

/// RegisterTiled<ExecSpace, Scalar, Layout>::run (register_tiled/launch.hpp).
template <class ExecSpace, class Scalar, class Layout>
void run_register_tiled(const GemmOperands<ExecSpace, Scalar, Layout>& g, const LaunchConfig& cfg,
                        Scalar* partials);

}  // namespace tilemm::kernels
