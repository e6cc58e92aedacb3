// The backend a kernel-test executable runs on. CMakeLists.txt here compiles the kernel tests once
// per backend of the Kokkos build (tilemm_kernel_tests_<backend>, with TILEMM_TEST_BACKEND_<NAME>
// defined), so that each executable instantiates the kernels for one execution space only: the
// three compile in parallel, and each test binary names what it tests.
#pragma once

#include <string>

#include <Kokkos_Core.hpp>

namespace tilemm::test {

#if defined(TILEMM_TEST_BACKEND_SERIAL)
using TestSpace = Kokkos::Serial;
inline const char* backend_name() {
  return "serial";
}
#elif defined(TILEMM_TEST_BACKEND_OPENMP)
using TestSpace = Kokkos::OpenMP;
inline const char* backend_name() {
  return "openmp";
}
#elif defined(TILEMM_TEST_BACKEND_CUDA)
using TestSpace = Kokkos::Cuda;
inline const char* backend_name() {
  return "cuda";
}
#else
#error "define TILEMM_TEST_BACKEND_SERIAL, _OPENMP or _CUDA"
#endif

}  // namespace tilemm::test
