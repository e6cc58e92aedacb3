// The epilogue of the tiled kernels: an element of a team's tile of C from its accumulator.
#pragma once

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/epilogue/split_k.hpp"
#include "tilemm/kernels/gemm_operands.hpp"

namespace tilemm::kernels {

/// Element (row, col) of C, at (row - row0, col - col0) of kernel k's tile `local` among the
/// launch's tiles: acc scaled into C (C = alpha acc + beta C), or, where the launch splits K, acc
/// as it is into the partial tile of range `split` (split_k.hpp). k: the kernel, with its operands
/// g, its partials and split_launch().
template <class Layout, class Kernel, class Scalar>
KOKKOS_INLINE_FUNCTION void store_element(const Kernel& k, int split, int local, int row0, int col0,
                                          int row, int col, Scalar acc) {
  if (k.split_launch()) {
    k.partials[partial_offset<Layout>(k, split, local, row - row0, col - col0)] = acc;
  } else {
    scale_into(k.g.c(row, col), acc, k.g.alpha, k.g.beta);
  }
}

}  // namespace tilemm::kernels
