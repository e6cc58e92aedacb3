# cmake -DSOURCE_DIR=... -DWORK=... -DKokkos_DIR=... -DKokkosKernels_DIR=... -DCXX=... -DGENERATOR=...
#   -DMISSING=... -P this file:
# configures tilemm with TILEMM_REQUIRE_BACKENDS=MISSING, a backend Kokkos_DIR's Kokkos lacks, and
# checks that configure fails, naming it, before it goes on.
include(${CMAKE_CURRENT_LIST_DIR}/expect_refusal.cmake)
file(REMOVE_RECURSE ${WORK})
expect_refusal(${WORK} "\\(missing: ${MISSING}\\).*does NOT provide all backends"
               "TILEMM_REQUIRE_BACKENDS=${MISSING}" -DCMAKE_CXX_COMPILER=${CXX}
               -DKokkos_DIR=${Kokkos_DIR} -DKokkosKernels_DIR=${KokkosKernels_DIR}
               -DTILEMM_REQUIRE_BACKENDS=${MISSING})
file(REMOVE_RECURSE ${WORK})
