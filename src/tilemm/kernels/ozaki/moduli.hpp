// The moduli of the Ozaki scheme II and the bits they leave for the scaled operands: host
// functions of counts and exponents alone, free of Kokkos, so that the choice is testable without a
// backend.
//
//   moduli p_1 .. p_L: pairwise coprime, at most 256 (256 first), P = p_1 * ... * p_L
//   bits(L, k)  = floor(log2 P) - 2 - ceil(log2 k)
//                 the bits bA + bB that op(A)' and op(B)' may take: |sum_l a'_il b'_lj| <= k
//                 2^(bA+bB) then stays within P / 4, inside the balanced range (-P/2, P/2) that the
//                 reconstruction returns
//   needed(rA, rB, k) = the least L with bits(L, k) >= (rA + 53) + (rB + 53)
//                 rA: the largest exponent range within a row of op(A) (exponent of its largest
//                 magnitude less that of its smallest nonzero one), rB within a column of op(B);
//                 scaled so, every element is an integer and the product is exact
//   split(L, rA, rB, k) = (bA, bB): rA + 53 and rB + 53 where L gives the bits, else the bits
//                 shared evenly, neither side given more than it needs
#pragma once

#include <cmath>
#include <cstdint>

namespace tilemm::kernels::ozaki {

/// The most moduli this kernel runs with (about 240 bits).
constexpr int kMaxModuli = 32;

/// The moduli, pairwise coprime and each at most 256, the largest first (the greedy choice from
/// 256 down), so that each count takes the largest product.
constexpr int kModuli[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223,
                                     217, 211, 199, 197, 193, 191, 181, 179, 173, 167, 163,
                                     157, 151, 149, 139, 137, 131, 127, 113, 109, 107};

/// The bits of a double's significand: an element keeps them all once scaled to an integer.
constexpr int kSignificandBits = 53;

/// ceil(log2 k) for k >= 1.
inline int ceil_log2(std::int64_t k) {
  int bits = 0;
  while ((std::int64_t(1) << bits) < k) ++bits;
  return bits;
}

/// The bits bA + bB that the first `count` moduli leave for op(A)' and op(B)' with K = k (header
/// above); may be negative where they are too few for k.
inline int bits_for(int count, std::int64_t k) {
  double log2_product = 0;
  for (int l = 0; l < count; ++l) log2_product += std::log2(double(kModuli[l]));
  return int(std::floor(log2_product)) - 2 - ceil_log2(k);
}

/// The least count of moduli that keeps every element of op(A) and op(B) whole after scaling,
/// with range_a and range_b the largest exponent ranges within a row of op(A) and a column of
/// op(B) (0 for a row of one magnitude or of zeros); 0 when it would take more than kMaxModuli.
inline int moduli_needed(int range_a, int range_b, std::int64_t k) {
  const int need = range_a + range_b + 2 * kSignificandBits;
  for (int count = 1; count <= kMaxModuli; ++count) {
    if (bits_for(count, k) >= need) return count;
  }
  return 0;
}

/// The bits of op(A)' and op(B)': |a'_il| <= 2^a, |b'_lj| <= 2^b.
struct Bits {
  int a = 0, b = 0;
};

/// The bits that `count` moduli give each side (header above); at least 1 each where bits_for
/// gives 2 or more.
inline Bits split_bits(int count, int range_a, int range_b, std::int64_t k) {
  const int avail = bits_for(count, k);
  const int need_a = range_a + kSignificandBits, need_b = range_b + kSignificandBits;
  if (avail >= need_a + need_b) return {need_a, avail - need_a};
  int a = avail / 2;
  if (a > need_a) a = need_a;
  if (avail - a > need_b) a = avail - need_b;
  if (a < 1) a = 1;
  return {a, avail - a};
}

/// x^-1 mod p for x coprime to p (x, p >= 1), by the extended Euclidean algorithm.
inline int inverse_mod(std::int64_t x, int p) {
  std::int64_t r0 = p, r1 = x % p, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const std::int64_t q = r0 / r1, r2 = r0 - q * r1, t2 = t0 - q * t1;
    r0 = r1;
    r1 = r2;
    t0 = t1;
    t1 = t2;
  }
  return int(((t0 % p) + p) % p);
}

/// The constants of the reconstruction for `count` moduli: the moduli, Garner's inverses,
/// inverse[l] = (p_1 * ... * p_(l-1))^-1 mod p_l (inverse[0] unused), and the radices of the
/// mixed-radix digits modulo each modulus, radix[l][t] = p_1 * ... * p_t mod p_l (radix[l][0] = 1),
/// so that a digit's sum takes one remainder instead of one a term. Copied into kernels by value.
struct Garner {
  int count = 0;
  int modulus[kMaxModuli] = {};
  int inverse[kMaxModuli] = {};
  std::uint8_t radix[kMaxModuli][kMaxModuli] = {};

  static Garner of(int count) {
    Garner g;
    g.count = count;
    for (int l = 0; l < count; ++l) {
      g.modulus[l] = kModuli[l];
      std::int64_t product = 1;  // p_1 * ... * p_t mod p_l, for t = 0 .. l - 1
      for (int t = 0; t < l; ++t) {
        g.radix[l][t] = static_cast<std::uint8_t>(product);
        product = product * kModuli[t] % kModuli[l];
      }
      g.inverse[l] = l == 0 ? 0 : inverse_mod(product, kModuli[l]);
    }
    return g;
  }
};

}  // namespace tilemm::kernels::ozaki
