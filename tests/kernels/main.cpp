// GoogleTest with Kokkos initialized once around all tests. Flags: --backend=NAME picks the
// execution space under test; Kokkos' flags (--kokkos-num-threads=N, ...) go to Kokkos;
// GoogleTest's to it.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstring>
#include <iostream>

#include "backend_dispatch.hpp"
#include "tilemm/runner.hpp"

namespace tilemm::test {
std::string& backend_name() {
  static std::string name;
  return name;
}
}  // namespace tilemm::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  auto& backend = tilemm::test::backend_name();
  backend = tilemm::default_backend();
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--backend=", 10) == 0) {
      backend = argv[i] + 10;
    } else {
      std::cerr << "unknown argument: " << argv[i] << "\n";
      return 2;
    }
  }
  tilemm::check_backend(backend);
  std::cout << "backend under test: " << backend << " (concurrency "
            << tilemm::describe_backend(backend).concurrency << ")\n";
  return RUN_ALL_TESTS();
}
