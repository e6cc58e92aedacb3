# cmake -DSOURCE_DIR=... -DWORK=... -DKokkos_DIR=... -DCXX=... -DGENERATOR=... -P this file:
# configures tilemm against Kokkos_DIR's Kokkos and a Kokkos Kernels of another release (a stand-in
# package with a version file alone), and checks that configure refuses it before it goes on.
include(${CMAKE_CURRENT_LIST_DIR}/expect_refusal.cmake)
file(REMOVE_RECURSE ${WORK})
set(kk ${WORK}/kokkos-kernels/lib/cmake/KokkosKernels)
file(WRITE ${kk}/KokkosKernelsConfigVersion.cmake
     "set(PACKAGE_VERSION 99.1.00)\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n")
file(WRITE ${kk}/KokkosKernelsConfig.cmake "")
expect_refusal(${WORK}/build "Kokkos Kernels 99\\.1\\.00 \\([^)]*\\) was not made for Kokkos"
               "Kokkos Kernels 99.1.00" -DCMAKE_CXX_COMPILER=${CXX} -DKokkos_DIR=${Kokkos_DIR}
               -DKokkosKernels_DIR=${kk})
