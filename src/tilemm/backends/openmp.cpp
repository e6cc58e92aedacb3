// The OpenMP backend: the registry's functions (backend_runner.hpp) for Kokkos::OpenMP, when this
// Kokkos build has it.
#include "tilemm/backend_runner.hpp"

namespace tilemm {
#ifdef KOKKOS_ENABLE_OPENMP
BackendOps openmp_backend() {
  return BackendRunner<Kokkos::OpenMP>::ops("openmp");
}
#endif
}  // namespace tilemm
