# cmake -DSOURCE_DIR=... -DWORK=... -DKokkos_DIR=... -DCXX=... -DGENERATOR=... -P this file:
# configures tilemm against Kokkos_DIR's Kokkos and a Kokkos Kernels of another release (a stand-in
# package with a version file alone), and checks that configure refuses it before it goes on.
file(REMOVE_RECURSE ${WORK})
set(kk ${WORK}/kokkos-kernels/lib/cmake/KokkosKernels)
file(WRITE ${kk}/KokkosKernelsConfigVersion.cmake
     "set(PACKAGE_VERSION 99.1.00)\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n")
file(WRITE ${kk}/KokkosKernelsConfig.cmake "")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK}/build -G ${GENERATOR}
                        -DCMAKE_CXX_COMPILER=${CXX} -DKokkos_DIR=${Kokkos_DIR}
                        -DKokkosKernels_DIR=${kk}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX REPLACE "[ \n]+" " " flat "${out}")
set(refusal "Kokkos Kernels 99\\.1\\.00 \\([^)]*\\) was not made for Kokkos")
if(status EQUAL 0 OR NOT flat MATCHES "${refusal}")
  message(FATAL_ERROR "configure did not refuse Kokkos Kernels 99.1.00:\n${out}")
endif()
