# expect_refusal(WORK REFUSAL WHAT ARGS...): configures tilemm (SOURCE_DIR, GENERATOR) into WORK with
# ARGS and fails unless configure fails with a message matching the regex REFUSAL; WHAT names what
# should have been refused. Included by the configure.* tests' scripts.
function(expect_refusal work refusal what)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${work} -G ${GENERATOR} ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REGEX REPLACE "[ \n]+" " " flat "${out}")
  if(status EQUAL 0 OR NOT flat MATCHES "${refusal}")
    message(FATAL_ERROR "configure did not refuse ${what}:\n${out}")
  endif()
endfunction()
