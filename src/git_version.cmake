# Writes OUTPUT with TILEMM_GIT_HASH: `git describe` of SOURCE_DIR, else FALLBACK, else "unknown".
execute_process(
  COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR hash STREQUAL "")
  set(hash "${FALLBACK}")
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
