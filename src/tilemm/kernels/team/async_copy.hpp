// A team's asynchronous copies from global memory into scratch (tensor-tiled's copy stages): 16
// bytes a copy, grouped, and waited for a group at a time.
#pragma once

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/warp/mma_fragment.hpp"  // TILEMM_TENSOR_MMA: a device pass from sm_80

namespace tilemm::kernels {

/// 16 bytes from global memory into scratch, both 16-byte aligned: from sm_80 an asynchronous
/// copy (cp.async, no register in between) that async_wait waits for, elsewhere a plain copy.
template <class Scalar>
KOKKOS_INLINE_FUNCTION void async_copy16(Scalar* dst, const Scalar* src) {
#ifdef TILEMM_TENSOR_MMA
  const auto to = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(src) : "memory");
#else
  for (int i = 0; i < int(16 / sizeof(Scalar)); ++i) dst[i] = src[i];
#endif
}
/// Closes this thread's group of asynchronous copies issued since the last group.
KOKKOS_INLINE_FUNCTION void async_commit() {
#ifdef TILEMM_TENSOR_MMA
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/// Waits until at most `Pending` of this thread's latest groups are still in flight.
template <int Pending>
KOKKOS_INLINE_FUNCTION void async_wait() {
#ifdef TILEMM_TENSOR_MMA
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

}  // namespace tilemm::kernels
