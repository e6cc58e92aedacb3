// The Serial backend: the runner compiled for Kokkos::Serial, when this Kokkos build has it.
#include "tilemm/backend_runner.hpp"

namespace tilemm {
#ifdef KOKKOS_ENABLE_SERIAL
BackendOps serial_backend() {
  return BackendRunner<Kokkos::Serial>::ops("serial");
}
#endif
}  // namespace tilemm
