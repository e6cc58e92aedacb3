// How tensor-tiled's threads stage a panel (tensor_tiled/kernel.hpp): each thread fetches its share
// of the panel from op(A) or op(B) into registers and deposits it into scratch later, or copies it
// into scratch asynchronously, 16 bytes a copy, where the panel lies in aligned runs. A panel
// (tensor-tiled's Panel) says where each element lies in scratch; a walk (PanelWalk) says which
// elements are the thread's.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>

#include "tilemm/kernels/team/async_copy.hpp"
#include "tilemm/kernels/team/panel.hpp"
#include "tilemm/kernels/team/vec.hpp"
#include "tilemm/kernels/unroll.hpp"

namespace tilemm::kernels {

/// A thread's share of panel p into registers: 4 neighbours a load by the walk `quads` (items
/// of 4, made once before the K loop) where the panel lies inside op(X) in whole quads and
/// op(X)'s runs of 4 are aligned (`aligned`); else a scalar at a time, zero outside op(X).
/// Returns whether it read quads, for deposit_share().
template <int Lanes, int N, class Scalar, class Op, class Panel>
KOKKOS_INLINE_FUNCTION bool fetch_share(const Op& x, bool aligned, const Panel& p, int rank,
                                        const PanelWalk& quads, Scalar (&stage)[N]) {
  static_assert(N % 4 == 0, "a share is whole quads");
  if (aligned && p.length % 4 == 0 && p.inside(x)) {
    const Scalar* origin = x.pointer(p.row0, p.col0);
    const int ld = x.leading();
    PanelWalk w = quads;
    TILEMM_UNROLL
    for (int s = 0; s < N / 4; ++s, w.next()) {
      if (w.more()) {
        const auto q =
            *reinterpret_cast<const Quad<Scalar>*>(origin + std::ptrdiff_t(w.line) * ld + w.pos());
        TILEMM_UNROLL
        for (int i = 0; i < 4; ++i) stage[4 * s + i] = q.v[i];
      }
    }
    return true;
  }
  PanelWalk w = p.walk(rank, Lanes, 1);
  TILEMM_UNROLL
  for (int s = 0; s < N; ++s, w.next()) {
    if (w.more()) stage[s] = p.value(x, w.line, w.pos());
  }
  return false;
}
/// ... and from registers into scratch by the same walk; a quad 16 bytes a store where its
/// neighbours are neighbours in scratch too (scratch rows are 16-byte aligned).
template <int Lanes, int N, class Scalar, class Panel>
KOKKOS_INLINE_FUNCTION void deposit_share(bool quads, const Panel& p, int rank,
                                          const PanelWalk& quad_walk, const Scalar (&stage)[N]) {
  if (quads) {
    constexpr int kWide = 16 / sizeof(Scalar);
    PanelWalk w = quad_walk;
    TILEMM_UNROLL
    for (int s = 0; s < N / 4; ++s, w.next()) {
      if (!w.more()) continue;
      if (p.dst_along_lines()) {
        TILEMM_UNROLL
        for (int i = 0; i < 4; i += kWide) {
          Vec<Scalar, kWide> v;
          TILEMM_UNROLL
          for (int j = 0; j < kWide; ++j) v.v[j] = stage[4 * s + i + j];
          *reinterpret_cast<Vec<Scalar, kWide>*>(&p.at(w.line, w.pos() + i)) = v;
        }
      } else {
        TILEMM_UNROLL
        for (int i = 0; i < 4; ++i) p.at(w.line, w.pos() + i) = stage[4 * s + i];
      }
    }
  } else {
    PanelWalk w = p.walk(rank, Lanes, 1);
    TILEMM_UNROLL
    for (int s = 0; s < N; ++s, w.next()) {
      if (w.more()) p.at(w.line, w.pos()) = stage[s];
    }
  }
}

/// A thread's share of the 16-byte runs of a panel that the team copies whole: the panel's lines
/// of PerLine runs, N runs a thread, thread r taking run r % PerLine of line r / PerLine and of
/// every (Lanes / PerLine)-th line after it: PanelWalk's order, which never wraps here, since
/// Lanes is a multiple of PerLine. Every thread has its N runs, so that no copy is guarded, and a
/// thread's next run lies a fixed distance on in the operand and in scratch.
template <int Lanes, int PerLine, int N>
struct CopyRuns {
  static_assert(Lanes % PerLine == 0, "a team's copies cover whole lines");
  static constexpr int kStep = Lanes / PerLine;  // lines from one of a thread's runs to the next
  static constexpr int kCount = N;
  int line, item;  // the thread's first run
  KOKKOS_INLINE_FUNCTION explicit CopyRuns(int rank) : line(rank / PerLine), item(rank % PerLine) {}
};

/// Starts the copies of a thread's runs r of panel p, whose lines lie along op(X)'s memory and
/// along scratch rows alike. Neighbouring threads copy neighbouring runs, so that a warp's copy
/// asks for each 32-byte sector of a line once; the addresses are worked out once, and each copy
/// adds a constant to them.
template <class Scalar, class Runs, class Op, class Panel>
KOKKOS_INLINE_FUNCTION void copy_runs(const Op& x, const Panel& p, const Runs& r) {
  constexpr int kRun = 16 / sizeof(Scalar);
  const std::ptrdiff_t ld = x.leading();
  const Scalar* src = x.pointer(p.row0, p.col0) + r.line * ld + r.item * kRun;
  TILEMM_UNROLL
  for (int s = 0; s < Runs::kCount; ++s)
    async_copy16(&p.at(r.line + s * Runs::kStep, r.item * kRun), src + s * Runs::kStep * ld);
}

}  // namespace tilemm::kernels
