// TILEMM_UNROLL: unroll the next loop completely. A thread tile (an array indexed by loop counters)
// stays in registers only when every loop over it is unrolled, and compilers stop short on their
// own: GCC at 16 steps, where an 8x16 float tile spilled and ran seven times slower.
#pragma once

#include <Kokkos_Core.hpp>

//
// TILEMM_UNROLL_BY(n): unroll a loop of unknown trip count n times (fewer loop branches and index
// updates between the multiply-adds).
#define TILEMM_PRAGMA(text) _Pragma(#text)
#if defined(KOKKOS_ENABLE_PRAGMA_UNROLL) || defined(__clang__)
#define TILEMM_UNROLL _Pragma("unroll")
#define TILEMM_UNROLL_BY(n) TILEMM_PRAGMA(unroll n)
#elif defined(__CUDACC__)
// nvcc's host pass: GCC's spelling reaches the host compiler; nvcc would warn that it is not its
// own.
#define TILEMM_UNROLL_BY(n)                                                                  \
  _Pragma("nv_diagnostic push") _Pragma("nv_diag_suppress 1675") TILEMM_PRAGMA(GCC unroll n) \
      _Pragma("nv_diagnostic pop")
#define TILEMM_UNROLL TILEMM_UNROLL_BY(64)
#elif defined(__GNUC__)
#define TILEMM_UNROLL_BY(n) TILEMM_PRAGMA(GCC unroll n)
#define TILEMM_UNROLL TILEMM_UNROLL_BY(64)
#else
#define TILEMM_UNROLL
#define TILEMM_UNROLL_BY(n)
#endif
