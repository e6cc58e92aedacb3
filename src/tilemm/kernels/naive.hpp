// naive: one thread per element of C, the baseline.
//
//   for each (i, j) in parallel:
//     acc = sum over l of op(A)(i, l) * op(B)(l, j)
//     C(i, j) = alpha * acc + beta * C(i, j)
//
// Every product reads its operands from main memory: 2 loads per multiply-add.
#pragma once

#include <cstdint>

#include "tilemm/kernels/gemm_operands.hpp"

namespace tilemm::kernels {

template <class ExecSpace, class Scalar, class Layout>
void naive(const GemmOperands<ExecSpace, Scalar, Layout>& g) {
  const auto A = g.a;
  const auto B = g.b;
  const auto C = g.c;
  const Scalar alpha = g.alpha, beta = g.beta;
  const int M = g.m(), N = g.n(), K = g.k();
  // Number the elements along C's contiguous dimension, so that neighbouring threads write
  // neighbouring elements (coalesced on a GPU, one stream per core on a CPU).
  constexpr bool row_major = std::is_same<Layout, Kokkos::LayoutRight>::value;

  Kokkos::parallel_for(
      "tilemm::naive",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
          0, static_cast<std::int64_t>(M) * N),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const int i = static_cast<int>(row_major ? e / N : e % M);
        const int j = static_cast<int>(row_major ? e % N : e / M);
        Scalar acc = 0;
        for (int l = 0; l < K; ++l) acc += A(i, l) * B(l, j);
        scale_into(C(i, j), acc, alpha, beta);
      });
}

}  // namespace tilemm::kernels
