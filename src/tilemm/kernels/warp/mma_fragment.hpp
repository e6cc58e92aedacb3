// tensor-tiled's one backend-specific part (tensor_tiled/kernel.hpp): a warp's product of an m16 x
// k block of As by a k x n8 block of Bs, both in team scratch, into an m16 x n8 block of C that the
// warp's 32 lanes hold 4 elements each.
//
//   lane = 4 g + t                              g: the lane's group, t: its place in the group
//   A element i of a lane: row g + 8 (i % 2), column t + 4 (i / 2)         (k / 2 elements)
//   B element i of a lane: row t + 4 i, column g                           (k / 4 elements)
//   C element i of a lane: row g + 8 (i / 2), column 2 t + i % 2           (4 elements)
//   load_a, load_b: a lane's elements from scratch, in either order (operand_scratch.hpp)
//   mma: C += A B over the warp, each lane giving its elements and taking its own of C
//
// These are the maps of PTX's mma.sync shapes m16n8k4, m16n8k8 and m16n8k16 (f64), and of
// m16n8k8 (tf32). CUDA from sm_80 runs mma through inline PTX: double as DMMA (on sm_80, whose
// only f64 shape is m8n8k4, as two m8n8k4 for each 4 of k: their maps are the halves g and g + 8
// of the m16 maps); float by the split-TF32 method: each operand x is split into x_hi = tf32(x)
// and x_lo = tf32(x - x_hi), and C += a_lo b_hi + a_hi b_lo + a_hi b_hi in FP32 accumulators
// (the a_lo b_lo term is below FP32's rounding), as CUTLASS's OpMultiplyAddFastF32 does. Every
// other backend has no warp to exchange fragments in: there a lane makes its own 4 elements of C
// with plain multiply-adds over the same C map (product).
#pragma once

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/unroll.hpp"
#include "tilemm/kernels/warp/operand_scratch.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TILEMM_TENSOR_MMA 1  // this device pass has mma.sync
#endif

namespace tilemm::kernels {

/// The m16 x n8 x K fragments of one warp-wide multiply-accumulate in Scalar (K: 4, 8 or 16 in
/// double, 8 in float).
template <class Scalar, int K>
struct MmaFragment {
  static constexpr int kM = 16, kN = 8, kK = K;
  static constexpr int kA = kM * K / 32, kB = K / 4, kC = kM * kN / 32;
  static_assert(std::is_same_v<Scalar, double> ? (K == 4 || K == 8 || K == 16) : K == 8,
                "mma shapes: m16n8k4, m16n8k8, m16n8k16 in double, m16n8k8 in float");

  struct A {
    Scalar v[kA];
  };
  struct B {
    Scalar v[kB];
  };
  using C = Scalar[kC];

  /// The row and column of a lane's element i of A (m x k), B (k x n) and C (m x n).
  KOKKOS_INLINE_FUNCTION static constexpr int a_row(int lane, int i) {
    return lane / 4 + 8 * (i % 2);
  }
  KOKKOS_INLINE_FUNCTION static constexpr int a_col(int lane, int i) {
    return lane % 4 + 4 * (i / 2);
  }
  KOKKOS_INLINE_FUNCTION static constexpr int b_row(int lane, int i) { return lane % 4 + 4 * i; }
  KOKKOS_INLINE_FUNCTION static constexpr int b_col(int lane, int) { return lane / 4; }
  KOKKOS_INLINE_FUNCTION static constexpr int c_row(int lane, int i) {
    return lane / 4 + 8 * (i / 2);
  }
  KOKKOS_INLINE_FUNCTION static constexpr int c_col(int lane, int i) {
    return 2 * (lane % 4) + i % 2;
  }

  /// A lane's elements of the A block at rows m0.., columns k0.. of As (laid out by `at`).
  KOKKOS_INLINE_FUNCTION static A load_a(const Scalar* As, OperandScratch at, int m0, int k0,
                                         int lane) {
    A a;
    TILEMM_UNROLL
    for (int i = 0; i < kA; ++i) a.v[i] = As[at(m0 + a_row(lane, i), k0 + a_col(lane, i))];
    return a;
  }
  /// A lane's elements of the B block at rows k0.., columns n0.. of Bs (laid out by `at`, which
  /// takes (n, k)).
  KOKKOS_INLINE_FUNCTION static B load_b(const Scalar* Bs, OperandScratch at, int k0, int n0,
                                         int lane) {
    B b;
    TILEMM_UNROLL
    for (int i = 0; i < kB; ++i) b.v[i] = Bs[at(n0 + b_col(lane, i), k0 + b_row(lane, i))];
    return b;
  }

  /// Any backend: a lane's elements of C += A B, each from the rows of As and columns of Bs that
  /// the C map gives it.
  KOKKOS_INLINE_FUNCTION static void product(C& c, const Scalar* As, OperandScratch at,
                                             const Scalar* Bs, OperandScratch bt, int m0, int n0,
                                             int k0, int lane) {
    TILEMM_UNROLL
    for (int i = 0; i < kC; ++i) {
      const int m = m0 + c_row(lane, i), n = n0 + c_col(lane, i);
      Scalar sum = c[i];
      TILEMM_UNROLL
      for (int k = 0; k < K; ++k) sum += As[at(m, k0 + k)] * Bs[bt(n, k0 + k)];
      c[i] = sum;
    }
  }

#ifdef TILEMM_TENSOR_MMA
  /// A float operand split for the three TF32 products: hi = tf32(x), lo = tf32(x - hi).
  template <int N>
  struct Split {
    std::uint32_t hi[N], lo[N];
  };
  /// x rounded to TF32: to nearest with ties away from zero (a few integer instructions on sm_90),
  /// or with ties to even (`Even`: one F2FP instruction on sm_90; below sm_90, which lacks it,
  /// ties away too). Either leaves |x - tf32(x)| <= 2^-11 |x|, the bound the split needs.
  template <bool Even>
  __device__ static std::uint32_t tf32_of(float x) {
    std::uint32_t t;
#if __CUDA_ARCH__ >= 900
    if constexpr (Even) {
      asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
      return t;
    }
#endif
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
    return t;
  }
  template <bool Even = false, int N>
  __device__ static Split<N> split(const Scalar (&x)[N]) {
    Split<N> s;
    TILEMM_UNROLL
    for (int i = 0; i < N; ++i) {
      s.hi[i] = tf32_of<Even>(x[i]);
      s.lo[i] = tf32_of<Even>(x[i] - __uint_as_float(s.hi[i]));
    }
    return s;
  }
  /// The operands as mma takes them: double as loaded, float split.
  using ReadyA = std::conditional_t<std::is_same_v<Scalar, float>, Split<kA>, A>;
  using ReadyB = std::conditional_t<std::is_same_v<Scalar, float>, Split<kB>, B>;
  template <bool Even = false>
  __device__ static ReadyA ready(const A& a) {
    if constexpr (std::is_same_v<Scalar, float>) {
      return split<Even>(a.v);
    } else {
      return a;
    }
  }
  template <bool Even = false>
  __device__ static ReadyB ready(const B& b) {
    if constexpr (std::is_same_v<Scalar, float>) {
      return split<Even>(b.v);
    } else {
      return b;
    }
  }

  /// One m16n8k8 TF32 multiply-accumulate in FP32.
  __device__ static void tf32(C& c, const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  /// One m8n8k4 f64 multiply-accumulate: c0, c1 += a b (sm_80's shape).
  __device__ static void m8n8k4(double& c0, double& c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
  }
  /// C += A B over the warp.
  __device__ static void mma(C& c, const ReadyA& a, const ReadyB& b) {
    if constexpr (std::is_same_v<Scalar, float>) {
      tf32(c, a.lo, b.hi);  // the small products first
      tf32(c, a.hi, b.lo);
      tf32(c, a.hi, b.hi);
    } else {
#if __CUDA_ARCH__ >= 900
      if constexpr (K == 4) {
        asm volatile(
            "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
            "{%0,%1,%2,%3};"
            : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
            : "d"(a.v[0]), "d"(a.v[1]), "d"(b.v[0]));
      } else if constexpr (K == 8) {
        asm volatile(
            "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};"
            : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
            : "d"(a.v[0]), "d"(a.v[1]), "d"(a.v[2]), "d"(a.v[3]), "d"(b.v[0]), "d"(b.v[1]));
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
            "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};"
            : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
            : "d"(a.v[0]), "d"(a.v[1]), "d"(a.v[2]), "d"(a.v[3]), "d"(a.v[4]), "d"(a.v[5]),
              "d"(a.v[6]), "d"(a.v[7]), "d"(b.v[0]), "d"(b.v[1]), "d"(b.v[2]), "d"(b.v[3]));
      }
#else
      TILEMM_UNROLL
      for (int s = 0; s < kB; ++s) {
        m8n8k4(c[0], c[1], a.v[2 * s], b.v[s]);      // rows g
        m8n8k4(c[2], c[3], a.v[2 * s + 1], b.v[s]);  // rows g + 8
      }
#endif
    }
  }
#endif  // TILEMM_TENSOR_MMA
};

/// The instruction that a kernel of Scalar with fragments of depth K runs on a GPU, as results
/// show it.
template <class Scalar>
inline const char* mma_instruction(int k) {
  if (std::is_same_v<Scalar, float>) return "mma.m16n8k8.tf32x3";
  return k == 4 ? "mma.m16n8k4.f64" : k == 8 ? "mma.m16n8k8.f64" : "mma.m16n8k16.f64";
}

}  // namespace tilemm::kernels
