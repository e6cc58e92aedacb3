// ozaki, the reconstruction: each element of C from its residues modulo every modulus, by Garner's
// algorithm, then scaled back and combined with alpha and beta.
//
//   for each (i, j) in parallel:
//     r_p = C_p(i, j) for each modulus p_1 .. p_L
//     v_1 = r_1 balanced                                      (mixed-radix digits, |v_q| <= p_q/2)
//     for q = 2 .. L:
//       s   = v_1 + v_2 p_1 + ... + v_(q-1) p_1 ... p_(q-2)      in int, the radices mod p_q
//       v_q = (r_q - s) (p_1 ... p_(q-1))^-1 mod p_q, balanced
//     x = v_1 + p_1 (v_2 + p_2 (v_3 + ...))                  Horner in double-double, with fma
//     C(i, j) = alpha * x 2^-(sA_i + sB_j) + beta * C(i, j)
//
// With 256 the first modulus and the others odd, the balanced digits give every integer of
// [-P/2, P/2) once, and the exact product sum lies there (moduli.hpp). The Horner steps carry a
// double-double: each step's product by p_q is split exactly by an fma and its sum by TwoSum, so
// x has a relative error near L 2^-104 before its one rounding to double; the scaling by a power of
// two is exact unless C's element is subnormal (one more rounding there, of at most 2^-1075).
#pragma once

#include <cmath>
#include <cstdint>

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/ozaki/split.hpp"

namespace tilemm::kernels::ozaki {

KOKKOS_INLINE_FUNCTION double fused_multiply_add(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return ::fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

/// a * b rounded, never fused with a later addition (nvcc fuses across statements by default,
/// which would break the TwoSum below; host compilers fuse no product with a second use).
KOKKOS_INLINE_FUNCTION double rounded_product(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

/// Garner's balanced mixed-radix digits of the integer whose residues are r[0 .. g.count). A
/// digit's sum of the digits before it times their radices stays within int32 (each term below
/// 2^15 in magnitude, at most 31 of them), so it takes one remainder.
KOKKOS_INLINE_FUNCTION void garner_digits(const Garner& g, const int* r, int* v) {
  v[0] = balanced(r[0], g.modulus[0]);
  for (int q = 1; q < g.count; ++q) {
    const int p = g.modulus[q];
    int s = 0;
    for (int t = 0; t < q; ++t) s += v[t] * int(g.radix[q][t]);
    const int d = ((r[q] - s) % p) * g.inverse[q] % p;
    v[q] = balanced(d, p);
  }
}

/// The digits' value, v[0] + p_1 (v[1] + p_2 (v[2] + ...)), rounded once to double.
KOKKOS_INLINE_FUNCTION double horner_value(const Garner& g, const int* v) {
  double hi = v[g.count - 1], lo = 0;
  for (int q = g.count - 2; q >= 0; --q) {
    const double p = g.modulus[q];
    const double product = rounded_product(hi, p);
    const double product_error = fused_multiply_add(hi, p, -product);  // hi p exactly, split
    const double tail = fused_multiply_add(lo, p, product_error + double(v[q]));
    const double sum = product + tail;  // TwoSum(product, tail)
    const double back = sum - product;
    lo = (product - (sum - back)) + (tail - back);
    hi = sum;
  }
  return hi + lo;
}

/// C = alpha * (the reconstructed products, scaled back) + beta * C.
template <class ExecSpace, class Layout, class Products, class Exps>
void reconstruct(const GemmOperands<ExecSpace, double, Layout>& op, const Products& products,
                 const Exps& exps_a, const Exps& exps_b, Bits bits, const Garner& g) {
  const auto C = op.c;
  const double alpha = op.alpha, beta = op.beta;
  const int M = op.m(), N = op.n();
  const std::int64_t size = std::int64_t(M) * N;
  constexpr bool row_major = std::is_same<Layout, Kokkos::LayoutRight>::value;
  Kokkos::parallel_for(
      "tilemm::ozaki::reconstruct",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, size),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const int i = static_cast<int>(row_major ? e / N : e % M);
        const int j = static_cast<int>(row_major ? e % N : e / M);
        double x = 0;
        if (exps_a(i) != kZeroLine && exps_b(j) != kZeroLine) {
          int r[kMaxModuli], v[kMaxModuli];
          for (int q = 0; q < g.count; ++q) r[q] = products(q * size + std::int64_t(i) * N + j);
          garner_digits(g, r, v);
          x = scale2(horner_value(g, v), (exps_a(i) - bits.a) + (exps_b(j) - bits.b));
        }
        scale_into(C(i, j), x, alpha, beta);
      });
}

}  // namespace tilemm::kernels::ozaki
