// Runs a test body on the Kokkos execution space named on the command line (--backend=NAME), so
// that CTest can run the one test executable once per backend of the build.
#pragma once

#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

namespace tilemm::test {

/// The backend under test, set by main() from --backend=NAME (default: Kokkos' default).
std::string& backend_name();

/// Calls f(ExecSpace{}) for the backend under test. f must only call named functions (CUDA lambdas
/// cannot be defined inside a generic lambda).
template <class F>
void on_backend(F&& f) {
  const std::string& name = backend_name();
#ifdef KOKKOS_ENABLE_SERIAL
  if (name == "serial") return f(Kokkos::Serial{});
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (name == "openmp") return f(Kokkos::OpenMP{});
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") return f(Kokkos::Cuda{});
#endif
  throw std::invalid_argument("this build has no backend '" + name + "'");
}

}  // namespace tilemm::test
