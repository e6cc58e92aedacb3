// GoogleTest with Kokkos initialized once around all tests, on the backend this executable was
// compiled for (backend_dispatch.hpp). Kokkos' flags (--kokkos-num-threads=N, ...) go to Kokkos,
// GoogleTest's to it.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <iostream>

#include "backend_dispatch.hpp"
#include "tilemm/runner.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  for (int i = 1; i < argc; ++i) {
    std::cerr << "unknown argument: " << argv[i] << "\n";
    return 2;
  }
  const char* backend = tilemm::test::backend_name();
  std::cout << "backend under test: " << backend << " (concurrency "
            << tilemm::describe_backend(backend).concurrency << ")\n";
  return RUN_ALL_TESTS();
}
