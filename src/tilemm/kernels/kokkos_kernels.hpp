// kokkos-kernels: KokkosBlas::gemm, the vendor baseline (cuBLAS on CUDA; the BLAS that Kokkos
// Kernels links on CPU backends) and, in double precision, the reference every kernel is checked
// against.
#pragma once

#include <KokkosBlas3_gemm.hpp>

#include "tilemm/kernels/gemm_operands.hpp"

namespace tilemm::kernels {

template <class ExecSpace, class Scalar, class Layout>
void kokkos_kernels(const GemmOperands<ExecSpace, Scalar, Layout>& g) {
  const char trans_a[] = {g.a.transposed ? 'T' : 'N', '\0'};
  const char trans_b[] = {g.b.transposed ? 'T' : 'N', '\0'};
  KokkosBlas::gemm(trans_a, trans_b, g.alpha, g.a.x, g.b.x, g.beta, g.c);
}

}  // namespace tilemm::kernels
