// The Cuda backend: the registry's functions (backend_runner.hpp) for Kokkos::Cuda, when this
// Kokkos build has it.
#include "tilemm/backend_runner.hpp"

namespace tilemm {
#ifdef KOKKOS_ENABLE_CUDA
BackendOps cuda_backend() {
  return BackendRunner<Kokkos::Cuda>::ops("cuda");
}
#endif
}  // namespace tilemm
