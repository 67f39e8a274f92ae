# What steps 13 and 14 share to test under mpiexec: the environment (Open MPI refuses root, which
# CI is, unless told), a launcher that may start more ranks than there are cores, and the two
# kinds of test. Include it after gemv_add_step, in a step's CMakeLists.
set(GEMV_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
set(GEMV_MPI_OVERSUBSCRIBE "")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE gemv_mpiexec_version ERROR_QUIET)
if(gemv_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(GEMV_MPI_OVERSUBSCRIBE --oversubscribe)  # more ranks than cores, Open MPI's flag
endif()

# "1 rank", "2 ranks": how a step program names its ranks in its launch column.
function(gemv_ranks_text np var)
  if(np GREATER 1)
    set(${var} "${np} ranks" PARENT_SCOPE)
  else()
    set(${var} "${np} rank" PARENT_SCOPE)
  endif()
endfunction()

# The generic checks of gemv_add_step run the program alone (MPI's singleton start): they need the
# environment too, with any more variables given. Call once, after gemv_add_step.
function(gemv_mpi_environment_for_generic_tests)
  get_property(generic DIRECTORY PROPERTY TESTS)
  set_tests_properties(${generic} PROPERTIES ENVIRONMENT "${GEMV_MPI_ENV};${ARGN}")
endfunction()

# gemv_mpi_test_program(EXE RANKS np... LABELS l TIMEOUT s [ENVIRONMENT e] [SKIP_77])
# The Catch2 test program EXE under mpiexec with each of RANKS (it also runs alone, from
# gemv_add_step). The exercise variant must fail where the maintainer preset expects it to.
function(gemv_mpi_test_program exe)
  cmake_parse_arguments(T "SKIP_77" "LABELS;TIMEOUT" "RANKS;ENVIRONMENT" ${ARGN})
  target_compile_definitions(${exe} PRIVATE GEMV_TEST_NEEDS_MPI=1)
  foreach(np IN LISTS T_RANKS)
    add_test(NAME ${exe}_np${np} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${GEMV_MPI_OVERSUBSCRIBE}
                                         ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${exe}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${exe}_np${np} PROPERTIES LABELS "${T_LABELS}" ENVIRONMENT "${GEMV_MPI_ENV};${T_ENVIRONMENT}"
                                                   TIMEOUT ${T_TIMEOUT})
    if(T_SKIP_77)
      set_tests_properties(${exe}_np${np} PROPERTIES SKIP_RETURN_CODE 77)
    endif()
    if(exe MATCHES "_exercise$" AND GEMV_EXERCISES_EXPECT_FAIL)
      set_tests_properties(${exe}_np${np} PROPERTIES WILL_FAIL TRUE)
    endif()
  endforeach()
endfunction()

# gemv_mpi_check(NAME n COMMAND word... CODE c REGEX r [ONCE o] LABELS l TIMEOUT s [SKIP_REGEX x]
#                [ENVIRONMENT e...])
# A step program's run, checked by cmake/expect_exit.cmake: exit code CODE, output matching REGEX
# and, with ONCE, ONCE matched exactly once (rank 0 alone speaks). COMMAND is the whole command
# line, mpiexec and its ranks included (GEMV_MPI_OVERSUBSCRIBE where it may start more than cores).
function(gemv_mpi_check)
  cmake_parse_arguments(C "" "NAME;CODE;REGEX;ONCE;LABELS;TIMEOUT;SKIP_REGEX" "COMMAND;ENVIRONMENT" ${ARGN})
  string(REPLACE ";" "," command "${C_COMMAND}")
  set(once "")
  if(DEFINED C_ONCE)
    set(once "-DONCE=${C_ONCE}")
  endif()
  add_test(NAME ${C_NAME} COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" -DEXPECT_CODE=${C_CODE}
                                  "-DEXPECT_REGEX=${C_REGEX}" ${once} -P "${PROJECT_SOURCE_DIR}/cmake/expect_exit.cmake")
  set_tests_properties(${C_NAME} PROPERTIES LABELS "${C_LABELS}" ENVIRONMENT "${GEMV_MPI_ENV};${C_ENVIRONMENT}"
                                            TIMEOUT ${C_TIMEOUT})
  if(DEFINED C_SKIP_REGEX)
    set_tests_properties(${C_NAME} PROPERTIES SKIP_REGULAR_EXPRESSION "${C_SKIP_REGEX}")
  endif()
endfunction()
