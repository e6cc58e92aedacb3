// The order in which the tiled kernels' teams take the tiles of C, and where a team's scratch
// begins.
#pragma once

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tilemm/kernels/team_launch.hpp"

namespace tilemm::kernels {

/// Tile-rows in a band of the tile order.
inline constexpr int kBand = 8;

/// Row and column of the tile that team `rank` computes among tiles_m x tiles_n: bands of kBand
/// tile-rows, column by column within a band, so that the panels of B a band needs are still in
/// cache when its next tile-row reads them.
KOKKOS_INLINE_FUNCTION void band_order(int rank, int tiles_m, int tiles_n, int& tile_m,
                                       int& tile_n) {
  const int per_band = kBand * tiles_n;
  const int first_m = (rank / per_band) * kBand;
  const int band_rows = tiles_m - first_m < kBand ? tiles_m - first_m : kBand;
  const int in_band = rank % per_band;
  tile_m = first_m + in_band % band_rows;
  tile_n = in_band / band_rows;
}

/// A team's scratch `shmem` (level 0 on a GPU) from its first address aligned to `Align` bytes,
/// as scalars. Aligned by an offset from the pointer: a pointer made from an integer would hide
/// from the compiler that it is a GPU's shared memory, and each access would become a generic one.
template <class Scalar, int Align, bool OnCpu>
KOKKOS_INLINE_FUNCTION Scalar* aligned_scratch(void* shmem) {
  char* raw = static_cast<char*>(OnCpu ? shmem : in_level0_scratch(shmem));
  return reinterpret_cast<Scalar*>(raw +
                                   (Align - reinterpret_cast<std::uintptr_t>(raw) % Align) % Align);
}

}  // namespace tilemm::kernels
