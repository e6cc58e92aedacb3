# cmake -DSOURCE_DIR=... -DWORK=... -DKokkos_DIR=... -DKokkosKernels_DIR=... -DCXX=... -DGENERATOR=...
#   -DMISSING=... -P this file:
# configures tilemm with TILEMM_REQUIRE_BACKENDS=MISSING, a backend Kokkos_DIR's Kokkos lacks, and
# checks that configure fails, naming it, before it goes on.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK} -G ${GENERATOR}
                        -DCMAKE_CXX_COMPILER=${CXX} -DKokkos_DIR=${Kokkos_DIR}
                        -DKokkosKernels_DIR=${KokkosKernels_DIR}
                        -DTILEMM_REQUIRE_BACKENDS=${MISSING}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX REPLACE "[ \n]+" " " flat "${out}")
if(status EQUAL 0 OR NOT flat MATCHES "\\(missing: ${MISSING}\\)"
   OR NOT flat MATCHES "does NOT provide all backends")
  message(FATAL_ERROR "configure did not refuse TILEMM_REQUIRE_BACKENDS=${MISSING}:\n${out}")
endif()
file(REMOVE_RECURSE ${WORK})
