# ctest helper: runs PROGRAM with ARGS (comma-separated), requires exit code EXPECT_CODE and
# output (stdout and stderr) matching EXPECT_REGEX.
string(REPLACE "," ";" args "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${args} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "${PROGRAM} ${args}: exit code ${code}, expected ${EXPECT_CODE}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "${PROGRAM} ${args}: output does not match '${EXPECT_REGEX}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
