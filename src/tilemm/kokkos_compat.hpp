// The few spellings that differ between the Kokkos versions tilemm builds against (3.4 from
// Debian's sources, 4.x from Spack or a module). Nothing deprecated in 4.x is used.
#pragma once

#include <Kokkos_Core.hpp>

namespace tilemm::compat {

// Kokkos 3.6 moved the math functions from Kokkos::Experimental into Kokkos.
#if KOKKOS_VERSION >= 30600
using Kokkos::sqrt;
#else
using Kokkos::Experimental::sqrt;
#endif

}  // namespace tilemm::compat
