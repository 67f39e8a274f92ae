# ctest helper for step 13: runs LAUNCH (mpiexec and its flags, comma-separated), then PROGRAM with
# ARGS (comma-separated); requires exit code EXPECT_CODE, output (stdout and stderr of every rank)
# matching EXPECT_REGEX, and ONCE matching exactly once: rank 0 alone speaks.
string(REPLACE "," ";" launch "${LAUNCH}")
string(REPLACE "," ";" args "${ARGS}")
execute_process(COMMAND ${launch} "${PROGRAM}" ${args} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(what "${launch} ${PROGRAM} ${args}")
if(NOT code STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "${what}: exit code ${code}, expected ${EXPECT_CODE}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "${what}: output does not match '${EXPECT_REGEX}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
string(REGEX MATCHALL "${ONCE}" hits "${out}${err}")
list(LENGTH hits count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "${what}: '${ONCE}' appears ${count} times, expected once (rank 0 alone prints)\n"
                      "stdout:\n${out}\nstderr:\n${err}")
endif()
