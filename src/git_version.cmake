# Writes OUTPUT with TILEMM_GIT_HASH: OVERRIDE when given (a tree copied without its .git, or with a
# stale one), else `git describe` of SOURCE_DIR, else "unknown".
set(hash "${OVERRIDE}")
if(hash STREQUAL "")
  execute_process(
    COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
    OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  if(failed)
    set(hash "")
  endif()
endif()
if(hash STREQUAL "")
  set(hash "unknown")
endif()
set(content "#pragma once\n#define TILEMM_GIT_HASH \"${hash}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
endif()
if(NOT "${previous}" STREQUAL "${content}")
  file(WRITE "${OUTPUT}" "${content}")
endif()
