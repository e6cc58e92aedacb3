// HostVector: a CPU vector register's worth of scalars, for the rows of a thread tile on a CPU.
//
// Written with arrays of scalars, the outer product's vector code is the compiler's choice, and
// GCC 12 chose badly on AVX-512: it read a thread tile's column of A as one vector and broadcast
// each value out of it with `vpermd`, which competes with the FMAs for their port. Written with a
// vector type, each value of A goes from memory straight into its FMAs, and a row of B is a whole
// register.
//
// Kokkos 4's Kokkos::Experimental::simd would serve; the Kokkos 3.4 that Debian 12 ships has none,
// so these are GCC's and Clang's vector types. nvcc takes no vector types in host-device functions,
// not even in those that only a CPU backend instantiates, so the CPU backends of a CUDA build go
// without them (TILEMM_HOST_VECTORS undefined) and keep the scalar form.
#pragma once

#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__) && \
    !defined(SYCL_LANGUAGE_VERSION)
#define TILEMM_HOST_VECTORS 1
#endif

namespace tilemm::kernels {

/// The thread tiles' AVX-512 form: of the 32 registers of 64 bytes, 24 hold C, in rows of three
/// registers in double (8x24) and of two in float (12x32).
template <class Scalar>
inline constexpr int kAvx512TileVectors = sizeof(Scalar) == 8 ? 3 : 2;

#ifdef TILEMM_HOST_VECTORS
inline constexpr bool kHostVectors = true;

/// The width of the target's vector registers. A wider vector type is not split into registers
/// well: GCC 12 goes through memory.
inline constexpr int kHostVectorBytes =
#if defined(__AVX512F__)
    64;
#elif defined(__AVX__)
    32;
#else
    16;  // SSE2, NEON, VSX
#endif

template <class Scalar>
struct HostVector {
  typedef Scalar type __attribute__((vector_size(kHostVectorBytes)));
  static constexpr int lanes = kHostVectorBytes / int(sizeof(Scalar));

  /// Loads and stores need no alignment: scratch rows are padded by four scalars (16 bytes in
  /// float, 32 in double), not by a whole vector.
  static inline type load(const Scalar* from) {
    type v;
    __builtin_memcpy(&v, from, sizeof v);
    return v;
  }
  static inline void store(Scalar* to, const type& v) { __builtin_memcpy(to, &v, sizeof v); }
};

/// The CPU's own thread tiles, rows of vector registers: with AVX-512's 32 registers, 24 hold C,
/// 12 rows of two in float (12x32) and 8 rows of three in double (8x24); with AVX2's 16, 12 hold C,
/// 6 rows of two (6x16 and 6x8). A row is its registers' FMAs on one broadcast of A, and loads B's
/// registers once for all rows. In double, 8 rows of three read A~'s micro-panel 8 scalars a step
/// (3 loads and 8 broadcasts for 24 FMAs, against 2 and 12), and take a third less of L1 for it.
/// With AVX2's 16 registers the AVX-512 tiles spill, and 6 rows of two registers are faster than
/// 12 rows of one.
template <class Scalar>
inline constexpr int kCpuTileVectors = kHostVectorBytes >= 64 ? kAvx512TileVectors<Scalar> : 2;
template <class Scalar>
inline constexpr int kCpuTileRows = kHostVectorBytes >= 64 ? 24 / kCpuTileVectors<Scalar> : 6;
template <class Scalar>
inline constexpr int kCpuTileCols = kCpuTileVectors<Scalar>* HostVector<Scalar>::lanes;
#else
inline constexpr bool kHostVectors = false;
inline constexpr int kHostVectorBytes = 0;  // no vector types: the loops run on scalars
/// Without vector types (nvcc's CPU backends), the thread tiles of the AVX-512 form, 8x24 and
/// 12x32.
template <class Scalar>
inline constexpr int kCpuTileRows = 24 / kAvx512TileVectors<Scalar>;
template <class Scalar>
inline constexpr int kCpuTileCols = kAvx512TileVectors<Scalar> * 64 / int(sizeof(Scalar));
#endif

}  // namespace tilemm::kernels
