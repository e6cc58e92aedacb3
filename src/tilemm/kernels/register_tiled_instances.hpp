// The register-tiled kernel's launch, declared apart from its source: its instances are most of a
// build, so each backend's, precision's and layout's compile in a file of their own
// (src/CMakeLists.txt), in parallel, and the files that launch it do not compile it again.
#pragma once

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/types.hpp"

namespace tilemm::kernels {

/// RegisterTiled<ExecSpace, Scalar, Layout>::plan (register_tiled.hpp).
template <class ExecSpace, class Scalar, class Layout>
LaunchConfig plan_register_tiled(const LaunchRequest& request, const Extents& extents);

/// RegisterTiled<ExecSpace, Scalar, Layout>::run (register_tiled.hpp).
template <class ExecSpace, class Scalar, class Layout>
void run_register_tiled(const GemmOperands<ExecSpace, Scalar, Layout>& g, const LaunchConfig& cfg,
                        Scalar* partials);

}  // namespace tilemm::kernels

/// Compiles the launch for one backend, precision and layout (in the generated instance files).
#define TILEMM_REGISTER_TILED_INSTANCE(ExecSpace, Scalar, Layout)                                \
  template tilemm::LaunchConfig tilemm::kernels::plan_register_tiled<ExecSpace, Scalar, Layout>( \
      const tilemm::LaunchRequest&, const tilemm::Extents&);                                     \
  template void tilemm::kernels::run_register_tiled<ExecSpace, Scalar, Layout>(                  \
      const tilemm::kernels::GemmOperands<ExecSpace, Scalar, Layout>&,                           \
      const tilemm::LaunchConfig&, Scalar*);
