# cmake -DBUILD_DIR=BUILD -DPREFIX=PREFIX -P install_prefix.cmake: installs the build BUILD into an
# empty PREFIX, and checks that the shipped specs came with it.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
                COMMAND_ERROR_IS_FATAL ANY)
file(GLOB_RECURSE shipped ${PREFIX}/*/tilemm/inputs/quickstart.yaml)
if(NOT shipped)
  message(FATAL_ERROR "${PREFIX} has no tilemm/inputs/quickstart.yaml")
endif()
