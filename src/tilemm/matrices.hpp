// Filling the matrices of a problem on the backend: reproducible random data, data from .npy files,
// and poison. Random values depend only on (seed, matrix, row, column), never on the backend, the
// layout or the thread count, so every backend multiplies the same matrices.
#pragma once

#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

namespace tilemm {

enum class MatrixId : std::uint64_t { A = 1, B = 2, C = 3 };

/// A uniform value in [-1, 1) from a counter-based hash (SplitMix64): no state, no sequence.
KOKKOS_INLINE_FUNCTION double uniform_value(std::uint64_t seed, MatrixId id, std::uint64_t index) {
  std::uint64_t z =
      (seed ^ (static_cast<std::uint64_t>(id) << 56)) + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

/// f(i, j) for every element of a rows x cols matrix, in parallel on ExecSpace.
template <class ExecSpace, class F>
void for_each_index(const char* label, std::int64_t rows, std::int64_t cols, const F& f) {
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, rows * cols),
      KOKKOS_LAMBDA(const std::int64_t e) { f(e / cols, e % cols); });
}

/// x(i, j) = uniform_value(seed, id, i * cols + j).
template <class ExecSpace, class View>
void fill_random(const View& x, std::uint64_t seed, MatrixId id) {
  using Scalar = typename View::non_const_value_type;
  const std::int64_t cols = x.extent(1);
  for_each_index<ExecSpace>(
      "tilemm::fill_random", x.extent(0), cols,
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        x(i, j) = static_cast<Scalar>(uniform_value(seed, id, i * cols + j));
      });
}

/// Every element a quiet NaN: a kernel that skips an element, or reads C although beta == 0,
/// leaves a NaN that validation cannot miss.
template <class ExecSpace, class View>
void fill_nan(const View& x) {
  using Scalar = typename View::non_const_value_type;
  Kokkos::deep_copy(ExecSpace(), x, std::numeric_limits<Scalar>::quiet_NaN());
}

/// y = x converted to y's value type, element by element (views of one layout and backend).
template <class ExecSpace, class In, class Out>
void convert(const In& x, const Out& y) {
  using T = typename Out::non_const_value_type;
  for_each_index<ExecSpace>(
      "tilemm::convert", x.extent(0), x.extent(1),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        y(i, j) = static_cast<T>(x(i, j));
      });
}

}  // namespace tilemm
