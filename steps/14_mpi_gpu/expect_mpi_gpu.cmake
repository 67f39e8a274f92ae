# ctest helper for step 14: runs COMMAND (comma-separated: mpiexec, its flags, the program and its
# arguments); requires exit code EXPECT_CODE, output (stdout and stderr of every rank) matching
# EXPECT_REGEX, and ONCE matching exactly once: rank 0 alone speaks. Exit 77 where it was not
# expected means no GPU on some rank: the test says "skipped", which ctest reports as skipped.
string(REPLACE "," ";" command "${COMMAND}")
execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE ";" " " what "${command}")
if(code STREQUAL "77" AND NOT EXPECT_CODE STREQUAL "77")
  message("skipped: no CUDA device (exit 77)\n${what}\n${out}${err}")
  return()
endif()
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
