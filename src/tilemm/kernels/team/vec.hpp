// A thread's wide accesses: W neighbouring scalars moved by the fewest instructions (a GPU thread's
// widest load or store is 16 bytes).
#pragma once

namespace tilemm::kernels {

/// W consecutive scalars, aligned to their size, so that the fewest load instructions read them (a
/// GPU's widest load is 16 bytes: a double Quad takes two).
template <class Scalar, int W>
struct alignas(W * sizeof(Scalar)) Vec {
  Scalar v[W];
};
/// Four: the unit in which the tiled kernels stage their panels through registers.
template <class Scalar>
using Quad = Vec<Scalar, 4>;

}  // namespace tilemm::kernels
