// TILEMM_UNROLL: unroll the next loop completely. A thread tile (an array indexed by loop counters)
// stays in registers only when every loop over it is unrolled, and compilers stop short on their
// own: GCC at 16 steps, where an 8x16 float tile spills.
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_PRAGMA_UNROLL) || defined(__clang__)
#define TILEMM_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
// nvcc's host pass: GCC's spelling reaches the host compiler; nvcc would warn that it is not its
// own.
#define TILEMM_UNROLL                                                                     \
  _Pragma("nv_diagnostic push") _Pragma("nv_diag_suppress 1675") _Pragma("GCC unroll 64") \
      _Pragma("nv_diagnostic pop")
#elif defined(__GNUC__)
#define TILEMM_UNROLL _Pragma("GCC unroll 64")
#else
#define TILEMM_UNROLL
#endif
