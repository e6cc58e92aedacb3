// ozaki: C = alpha op(A) op(B) + beta C in double from int8 products, the Ozaki scheme II (Ozaki,
// Uchino, Imamura, arXiv 2504.08009), its steps in the files beside this one.
//
//   exponents of op(A)'s rows and op(B)'s columns, their largest ranges rA, rB   (split.hpp)
//   L = the spec's count of moduli, or moduli_needed(rA, rB, K)                  (moduli.hpp)
//   (bA, bB) = split_bits(L, rA, rB, K)
//   A_p, B_p = residues of op(A) and op(B)^T scaled to bA and bB bits, each p    (split.hpp)
//   C_p = A_p B_p^T mod p, each p                   (product.hpp; on CUDA product_mma.hpp)
//   C = alpha * CRT(C_1 .. C_L) / (2^sA_i 2^sB_j) + beta * C                     (reconstruct.hpp)
//
// The backend memory it needs (the residues, the products, the exponents) comes from the plan as
// LaunchConfig::partial_elements doubles, carved here into int8, uint8 and int arrays.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/launch_error.hpp"
#include "tilemm/kernels/ozaki/moduli.hpp"
#include "tilemm/kernels/ozaki/product.hpp"
#include "tilemm/kernels/ozaki/product_mma.hpp"
#include "tilemm/kernels/ozaki/reconstruct.hpp"
#include "tilemm/kernels/ozaki/split.hpp"

namespace tilemm::kernels::ozaki {

/// The products' kernel and the name of its instruction: the tensor cores' mma on CUDA, the
/// portable multiply-adds elsewhere.
template <class ExecSpace>
struct ProductsOf {
  using type = ModularProducts<ExecSpace>;
  static constexpr const char* name = "int8 products";
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct ProductsOf<Kokkos::Cuda> {
  using type = MmaProducts;
  static constexpr const char* name = "mma.m16n8k32.s8";
};
#endif

/// The bytes of a line of residues for k elements: k rounded up to whole 16-byte pieces.
inline std::int64_t line_bytes(std::int64_t k) {
  return (k + 15) / 16 * 16;
}

/// The arrays of a product with `count` moduli, as byte offsets into its memory.
struct Carving {
  std::size_t a = 0, b = 0, c = 0, exps_a = 0, exps_b = 0, bytes = 0;

  static Carving of(std::int64_t m, std::int64_t n, std::int64_t k, int count) {
    const auto aligned = [](std::size_t bytes) {
      return (bytes + 63) / 64 * 64;
    };
    Carving w;
    const std::int64_t ld = line_bytes(k);
    w.b = w.a + aligned(std::size_t(count) * m * ld);
    w.c = w.b + aligned(std::size_t(count) * n * ld);
    w.exps_a = w.c + aligned(std::size_t(count) * m * n);
    w.exps_b = w.exps_a + aligned(sizeof(int) * m);
    w.bytes = w.exps_b + aligned(sizeof(int) * n);
    return w;
  }
};

/// The instruction column's text for `count` moduli (0: chosen from the data when it runs).
template <class ExecSpace>
std::string describe(int count) {
  const std::string products = ProductsOf<ExecSpace>::name;
  return count == 0 ? products + ", moduli from the data"
                    : products + ", " + std::to_string(count) + " moduli";
}

/// The launch: the products' tile and team, and memory for `request_moduli` moduli (0: as many
/// as the data may need, kMaxModuli). Throws LaunchError (LaunchLimit::Moduli) where that count
/// leaves fewer than 2 bits for op(A) and op(B) at this K.
template <class ExecSpace>
LaunchConfig plan(int request_moduli, const Extents& e) {
  LaunchConfig cfg = ProductsOf<ExecSpace>::type::plan();
  if (request_moduli != 0 && bits_for(request_moduli, e.k) < 2) {
    throw LaunchError(LaunchLimit::Moduli, std::to_string(request_moduli) +
                                               " moduli leave no bits for op(A) and op(B) at k = " +
                                               std::to_string(e.k) + ": give more");
  }
  cfg.moduli = request_moduli;
  cfg.instruction = describe<ExecSpace>(request_moduli);
  const int most = request_moduli ? request_moduli : kMaxModuli;
  cfg.partial_elements = (Carving::of(e.m, e.n, e.k, most).bytes + 7) / 8;
  return cfg;
}

/// The exponent ranges of op(A)'s rows and op(B)'s columns, their exponents into `exps_a` and
/// `exps_b`. Throws std::domain_error where op(A) or op(B) holds Inf or NaN.
template <class ExecSpace, class Layout, class Exps>
Bits scan(const GemmOperands<ExecSpace, double, Layout>& g, const Exps& exps_a,
          const Exps& exps_b) {
  const Bits ranges{scan_lines<ExecSpace>(g.a, true, exps_a),
                    scan_lines<ExecSpace>(g.b, false, exps_b)};
  if (ranges.a == kBadData || ranges.b == kBadData) {
    throw std::domain_error(std::string("op(") + (ranges.a == kBadData ? "A" : "B") +
                            ") holds Inf or NaN, which the Ozaki scheme cannot split");
  }
  return ranges;
}

/// The count of moduli for these ranges: cfg.moduli, or moduli_needed; throws LaunchError
/// (LaunchLimit::Moduli) where the data needs more than kMaxModuli.
inline int moduli_for(const LaunchConfig& cfg, Bits ranges, std::int64_t k) {
  if (cfg.moduli != 0) return cfg.moduli;
  const int count = moduli_needed(ranges.a, ranges.b, k);
  if (count == 0) {
    throw LaunchError(LaunchLimit::Moduli,
                      "the data spans " + std::to_string(ranges.a) +
                          " binades within a row of op(A) and " + std::to_string(ranges.b) +
                          " within a column of op(B): double accuracy at k = " + std::to_string(k) +
                          " needs more than the " + std::to_string(kMaxModuli) +
                          " moduli this kernel has");
  }
  return count;
}

/// cfg with the count of moduli that g's data takes filled in (moduli_for), for the results.
template <class ExecSpace, class Layout>
LaunchConfig resolve(const GemmOperands<ExecSpace, double, Layout>& g, LaunchConfig cfg) {
  Kokkos::View<int*, typename ExecSpace::memory_space> exps_a("exps_a", g.m()),
      exps_b("exps_b", g.n());
  cfg.moduli = moduli_for(cfg, scan(g, exps_a, exps_b), g.k());
  cfg.instruction = describe<ExecSpace>(cfg.moduli);
  return cfg;
}

/// C = alpha op(A) op(B) + beta C through `cfg.partial_elements` doubles of `memory`.
template <class ExecSpace, class Layout>
void run(const GemmOperands<ExecSpace, double, Layout>& g, const LaunchConfig& cfg,
         double* memory) {
  using Memory = typename ExecSpace::memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const int M = g.m(), N = g.n(), K = g.k(), ld = static_cast<int>(line_bytes(K));
  auto* bytes = reinterpret_cast<unsigned char*>(memory);
  const Carving most = Carving::of(M, N, K, cfg.moduli ? cfg.moduli : kMaxModuli);
  Kokkos::View<int*, Memory, Unmanaged> exps_a(reinterpret_cast<int*>(bytes + most.exps_a), M);
  Kokkos::View<int*, Memory, Unmanaged> exps_b(reinterpret_cast<int*>(bytes + most.exps_b), N);
  const Bits ranges = scan(g, exps_a, exps_b);
  const int count = moduli_for(cfg, ranges, K);
  const Garner garner = Garner::of(count);
  const Bits bits = split_bits(count, ranges.a, ranges.b, K);
  const Carving w = Carving::of(M, N, K, count);  // within `most`: count <= its moduli
  Kokkos::View<std::int8_t*, Memory, Unmanaged> a(reinterpret_cast<std::int8_t*>(bytes + w.a),
                                                  std::size_t(count) * M * ld);
  Kokkos::View<std::int8_t*, Memory, Unmanaged> b(reinterpret_cast<std::int8_t*>(bytes + w.b),
                                                  std::size_t(count) * N * ld);
  Kokkos::View<std::uint8_t*, Memory, Unmanaged> c(bytes + w.c, std::size_t(count) * M * N);
  split_lines<ExecSpace>(g.a, true, exps_a, bits.a, garner, ld, a);
  split_lines<ExecSpace>(g.b, false, exps_b, bits.b, garner, ld, b);

  ProductsOf<ExecSpace>::type::run(a, b, c, M, N, K, ld, garner, cfg);
  reconstruct(g, c, exps_a, exps_b, bits, garner);
}

}  // namespace tilemm::kernels::ozaki
