# cmake -DSOURCE_DIR=... -DWORK=... -DCACHE=... -DGENERATOR=... -P this file: configures tilemm with
# -DTILEMM_ENABLE_MPI=ON where CMake may not look for MPI, and checks that configure refuses to go on
# without what was asked. CACHE is an initial-cache script with the suite's own compiler and Kokkos,
# so that the configure gets as far as MPI.
include(${CMAKE_CURRENT_LIST_DIR}/expect_refusal.cmake)
file(REMOVE_RECURSE ${WORK})
expect_refusal(${WORK} "TILEMM_ENABLE_MPI is ON, but CMake found no MPI for C\\+\\+"
               "-DTILEMM_ENABLE_MPI=ON without MPI" -C ${CACHE} -DTILEMM_ENABLE_MPI=ON
               -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DTILEMM_ENABLE_TESTS=OFF
               -DTILEMM_ENABLE_BENCHMARKS=OFF)
