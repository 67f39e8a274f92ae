# ctest helper for checks on a program's exit code and output. Runs COMMAND (comma-separated, for
# example mpiexec, its flags and the program), or PROGRAM with ARGS (comma-separated); requires
# exit code EXPECT_CODE and output (stdout and stderr, every rank's) matching EXPECT_REGEX; with
# ONCE, that regex must match exactly once (rank 0 alone speaks).
# Exit 77 where it was not expected means no GPU: it prints "skipped: no CUDA device (exit 77)",
# which a test maps to skipped with SKIP_REGULAR_EXPRESSION. With BEFORE_DEVICE (bad input that
# must be refused before the program asks for a GPU), exit 77 fails instead.
if(DEFINED COMMAND)
  string(REPLACE "," ";" command "${COMMAND}")
else()
  string(REPLACE "," ";" args "${ARGS}")
  set(command "${PROGRAM}" ${args})
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE ";" " " what "${command}")
if(code STREQUAL "77" AND NOT EXPECT_CODE STREQUAL "77" AND DEFINED BEFORE_DEVICE)
  message(FATAL_ERROR "${what}: asked for a GPU (exit 77) before refusing its input\n${out}${err}")
endif()
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
if(DEFINED ONCE)
  string(REGEX MATCHALL "${ONCE}" hits "${out}${err}")
  list(LENGTH hits count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "${what}: '${ONCE}' appears ${count} times, expected once (rank 0 alone prints)\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()
endif()
