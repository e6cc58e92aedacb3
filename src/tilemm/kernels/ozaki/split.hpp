// ozaki, the splitting: op(A)'s rows and op(B)'s columns scaled by powers of two to integers, and
// those integers' residues modulo each modulus as int8.
//
//   exponents:  for each line x (a row of op(A), a column of op(B)), in parallel:
//                 E_x = exponent of max |x_l| (frexp's: max |x_l| < 2^E_x), kZeroLine if all 0
//                 range_x = E_x - exponent of min nonzero |x_l|
//               range = max over lines of range_x (kBadData if any element is Inf or NaN)
//   residues:   for each (line x, l) in parallel:
//                 v = round(x_l * 2^(bits - E_x))             an integer, |v| <= 2^bits, exact
//                 for each modulus p: R[p](x, l) = v mod p in [-p/2, p/2)     (int8)
//               each line's residues padded with zeros to ld, a multiple of 16 bytes
//
// The scaling by a power of two and the residues work on the double's bits, so that subnormals,
// and integers past int64, are exact; no library function is called on the device.
#pragma once

#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/gemm_operands.hpp"
#include "tilemm/kernels/ozaki/moduli.hpp"

namespace tilemm::kernels::ozaki {

/// The exponent of a line of zeros.
constexpr int kZeroLine = -(1 << 20);
/// The range a scan reports where an element is Inf or NaN.
constexpr int kBadData = 1 << 20;

KOKKOS_INLINE_FUNCTION std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
#endif
}

KOKKOS_INLINE_FUNCTION double double_of(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
#endif
}

/// Whether x is Inf or NaN.
KOKKOS_INLINE_FUNCTION bool not_finite(double x) {
  return ((bits_of(x) >> 52) & 0x7ff) == 0x7ff;
}

/// frexp's exponent of a finite nonzero x, subnormals included: |x| is in [2^(e-1), 2^e).
KOKKOS_INLINE_FUNCTION int exponent_of(double x) {
  const std::uint64_t u = bits_of(x);
  const int biased = static_cast<int>((u >> 52) & 0x7ff);
  if (biased != 0) return biased - 1022;
  const std::uint64_t m = u & ((std::uint64_t(1) << 52) - 1);
  int high = 0;  // the highest set bit of a subnormal's significand
  while (m >> (high + 1)) ++high;
  return high - 1073;
}

/// 2^e for e in [-1022, 1023].
KOKKOS_INLINE_FUNCTION double pow2(int e) {
  return double_of(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// x * 2^e, in steps that stay within double's normal powers of two: exact unless the result is
/// subnormal (rounded there) or past double's range.
KOKKOS_INLINE_FUNCTION double scale2(double x, int e) {
  while (e > 1000) {
    x *= pow2(1000);
    e -= 1000;
  }
  while (e < -1000) {
    x *= pow2(-1000);
    e += 1000;
  }
  return x * pow2(e);
}

/// x rounded to the nearest integer (ties to even), for any finite x.
KOKKOS_INLINE_FUNCTION double round_to_integer(double x) {
  constexpr double kTwo52 = 4503599627370496.0;  // from here on every double is an integer
  if (x >= kTwo52 || x <= -kTwo52) return x;
  return x >= 0 ? (x + kTwo52) - kTwo52 : (x - kTwo52) + kTwo52;
}

/// 2^q mod p for q >= 0: 2^(q mod 64) from a shift, times (2^64 mod p) for each 64 of q (a few:
/// the scaled integers stay below 2^250).
KOKKOS_INLINE_FUNCTION int pow2_mod(int q, int p) {
  const std::uint64_t modulus = static_cast<std::uint64_t>(p);
  const int two64 = static_cast<int>((~std::uint64_t(0) % modulus + 1) % modulus);
  int result = static_cast<int>((std::uint64_t(1) << (q & 63)) % modulus);
  for (int blocks = q >> 6; blocks > 0; --blocks) result = result * two64 % p;
  return result;
}

/// r in (-p, p) as the balanced residue in [-p/2, p/2).
KOKKOS_INLINE_FUNCTION int balanced(int r, int p) {
  if (r < 0) r += p;
  return r >= (p + 1) / 2 ? r - p : r;
}

/// An integer-valued double v modulo p, balanced: through int64 below 2^62, else from its bits
/// (v = +-M 2^q, M the 53-bit significand, q > 0).
KOKKOS_INLINE_FUNCTION int residue(double v, int p) {
  constexpr double kTwo62 = 4611686018427387904.0;
  if (v < kTwo62 && v > -kTwo62) return balanced(static_cast<int>(std::int64_t(v) % p), p);
  const std::uint64_t u = bits_of(v);
  const int q = static_cast<int>((u >> 52) & 0x7ff) - 1075;
  const std::uint64_t m = (u & ((std::uint64_t(1) << 52) - 1)) | (std::uint64_t(1) << 52);
  const int r = static_cast<int>(m % std::uint64_t(p)) * pow2_mod(q, p) % p;
  return balanced((u >> 63) ? -r : r, p);
}

/// The exponents of a matrix's lines (the rows of op(A) with `rows`, the columns of op(B)
/// without) into `exps`, and the largest exponent range within a line (kBadData if an element is
/// Inf or NaN).
template <class ExecSpace, class Op, class Exps>
int scan_lines(const Op& x, bool rows, const Exps& exps) {
  const int lines = rows ? x.rows() : x.cols(), length = rows ? x.cols() : x.rows();
  int range = 0;
  Kokkos::parallel_reduce(
      "tilemm::ozaki::exponents", Kokkos::RangePolicy<ExecSpace>(0, lines),
      KOKKOS_LAMBDA(const int line, int& most) {
        int high = kZeroLine, low = -kZeroLine;
        bool bad = false;
        for (int l = 0; l < length; ++l) {
          const double v = rows ? x(line, l) : x(l, line);
          if (v == 0) continue;
          if (not_finite(v)) {
            bad = true;
            continue;
          }
          const int e = exponent_of(v);
          high = e > high ? e : high;
          low = e < low ? e : low;
        }
        exps(line) = high;
        const int here = bad ? kBadData : (high == kZeroLine ? 0 : high - low);
        most = here > most ? here : most;
      },
      Kokkos::Max<int>(range));
  return range;
}

/// The balanced residues of a matrix's lines scaled to `bits` bits, for each of g's moduli:
/// residues[(p * lines + line) * ld + l] for element l of the line (K runs along a line), and
/// zeros for l from the line's length to ld, so that the products read whole 16-byte pieces.
template <class ExecSpace, class Op, class Exps, class Residues>
void split_lines(const Op& x, bool rows, const Exps& exps, int bits, const Garner& g, int ld,
                 const Residues& residues) {
  const int lines = rows ? x.rows() : x.cols(), length = rows ? x.cols() : x.rows();
  const std::int64_t size = std::int64_t(lines) * ld;
  Kokkos::parallel_for(
      "tilemm::ozaki::residues",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, size),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const int line = static_cast<int>(e / ld), l = static_cast<int>(e % ld);
        if (l >= length) {
          for (int p = 0; p < g.count; ++p) residues(p * size + e) = 0;
          return;
        }
        const double v = rows ? x(line, l) : x(l, line);
        const double scaled =
            exps(line) == kZeroLine ? 0.0 : round_to_integer(scale2(v, bits - exps(line)));
        for (int p = 0; p < g.count; ++p) {
          residues(p * size + e) = static_cast<std::int8_t>(residue(scaled, g.modulus[p]));
        }
      });
}

}  // namespace tilemm::kernels::ozaki
