#include "tilemm/backends.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <stdexcept>

#include "tilemm/errors.hpp"

namespace tilemm {

// Defined in backends/*.cpp, one for each execution space this Kokkos build has.
#ifdef KOKKOS_ENABLE_SERIAL
BackendOps serial_backend();
#endif
#ifdef KOKKOS_ENABLE_OPENMP
BackendOps openmp_backend();
#endif
#ifdef KOKKOS_ENABLE_CUDA
BackendOps cuda_backend();
#endif

namespace {

const std::vector<BackendOps>& backends() {
  static const std::vector<BackendOps> all = {
#ifdef KOKKOS_ENABLE_SERIAL
      serial_backend(),
#endif
#ifdef KOKKOS_ENABLE_OPENMP
      openmp_backend(),
#endif
#ifdef KOKKOS_ENABLE_CUDA
      cuda_backend(),
#endif
  };
  return all;
}

}  // namespace

std::vector<std::string> available_backends() {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  return names;
}

std::string default_backend() {
  return lower_case(Kokkos::DefaultExecutionSpace::name());
}

void check_backend(const std::string& name) {
  const auto names = available_backends();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError("--backend '" + name + "': this build of Kokkos has " + list);
  }
}

const BackendOps& backend_ops(const std::string& name) {
  check_backend(name);
  for (const auto& b : backends()) {
    if (b.name == name) return b;
  }
  throw std::logic_error("unreachable");
}

}  // namespace tilemm
