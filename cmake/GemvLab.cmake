# The lab's CMake vocabulary: how a step, its kernels, its exercise and its tests are built.

# The files of exercises/ that the generator wrote, from its manifest: only the files a student fills
# in. Every other source and header of an exercise is the solution's own, built from solutions/.
if("exercise" IN_LIST GEMV_VARIANTS)
  set(manifest "${CMAKE_CURRENT_LIST_DIR}/../exercises/generated.sha256")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
  file(STRINGS "${manifest}" lines)
  set(GEMV_GENERATED_EXERCISES "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[0-9a-f]+  " "" file "${line}")
    list(APPEND GEMV_GENERATED_EXERCISES "${file}")
  endforeach()
endif()

# gemv_add_step(NUMBER 03 NAME naive [GPU] SOURCES main.cpp KERNELS gemv_naive.cu
#               [TESTS test_step03_naive.cpp] [LIBS ...] [NEEDS_MPI] [NO_LADDER]
#               [PRECISIONS bf16 fp16 fp8] [BAD_ARGS "name|message regex|--option,value" ...]
#               [EXERCISE_ROWS "warp per row" ...])
#
# Builds, from steps/NN_name/, the program stepNN_name; from solutions/NN_name/ and
# exercises/NN_name/, the kernel library of each variant in GEMV_VARIANTS; from tests/, one test
# program per variant labelled stepNN, solution|exercise and gpu. Registers the step for the ladder
# and, a GPU step, for progress's figures (gemv_progress_programs).
# PRECISIONS: those the step takes, where not float and double (the ladder runs it in the first).
# BAD_ARGS: the step's own options out of range, each refused with exit 2 and the message.
# EXERCISE_ROWS: the rows of the program's report (their variant, or its start) that run the
# exercise's code, where others run borrowed kernels (cuBLAS beside it, say); default every row.
function(gemv_add_step)
  cmake_parse_arguments(S "GPU;NEEDS_MPI;NO_LADDER" "NUMBER;NAME"
                        "SOURCES;KERNELS;TESTS;LIBS;BAD_ARGS;PRECISIONS;EXERCISE_ROWS" ${ARGN})
  set(step "${S_NUMBER}_${S_NAME}")
  set(program "step${step}")
  if(S_GPU AND NOT GEMV_HAVE_CUDA)
    message(STATUS "step ${step}: skipped (no CUDA compiler)")
    return()
  endif()
  if(S_NEEDS_MPI AND NOT MPI_CXX_FOUND)
    message(STATUS "step ${step}: skipped (no MPI)")
    return()
  endif()
  set(common_lib gemv_common)
  if(S_GPU)
    set(common_lib gemv_common_cuda)
  endif()

  # One kernel library per variant: the same sources from solutions/, or for the exercise the
  # generated ones from exercises/ and the rest (headers included) from solutions/.
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${step}")
  foreach(variant IN LISTS GEMV_VARIANTS)
    set(dir "${PROJECT_SOURCE_DIR}/${variant}s/${step}")
    set(srcs "")
    foreach(k IN LISTS S_KERNELS)
      if(variant STREQUAL "solution" OR NOT "${step}/${k}" IN_LIST GEMV_GENERATED_EXERCISES)
        list(APPEND srcs "${solution_dir}/${k}")
      elseif(EXISTS "${dir}/${k}")
        list(APPEND srcs "${dir}/${k}")
      else()
        message(FATAL_ERROR "exercises/${step}/${k} is missing: python3 cmake/generate_exercises.py --step "
                            "${S_NUMBER} writes it again")
      endif()
    endforeach()
    set(lib "step${S_NUMBER}_${variant}_kernels")
    if(srcs)
      add_library(${lib} STATIC ${srcs})
      target_include_directories(${lib} PUBLIC "${dir}" "${solution_dir}")
      target_link_libraries(${lib} PUBLIC ${common_lib} ${S_LIBS})
      if(variant STREQUAL "exercise")
        # An untouched exercise declares what the code a student writes will use (the indices of
        # the element a thread owns, say): warnings that those are unused would bury the real ones.
        target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=177>
                                              $<$<COMPILE_LANGUAGE:CXX>:-Wno-unused-variable>)
      endif()
    else()  # a step with nothing to fill in (00): the harness alone
      add_library(${lib} INTERFACE)
      target_link_libraries(${lib} INTERFACE ${common_lib} ${S_LIBS})
    endif()
  endforeach()
  list(GET GEMV_VARIANTS 0 program_variant)
  # The solution's sources, for a later step that builds on them (14 runs 11's and 12's kernels).
  list(TRANSFORM S_KERNELS PREPEND "${PROJECT_SOURCE_DIR}/solutions/${step}/" OUTPUT_VARIABLE solution_sources)
  set_property(GLOBAL PROPERTY GEMV_STEP${S_NUMBER}_SOLUTION_SOURCES "${solution_sources}")
  set_property(GLOBAL PROPERTY GEMV_STEP${S_NUMBER}_SOLUTION_LIBS ${common_lib} ${S_LIBS})

  add_executable(${program} ${S_SOURCES})
  target_link_libraries(${program} PRIVATE step${S_NUMBER}_${program_variant}_kernels)
  set_target_properties(${program} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
  if(S_GPU)
    gemv_progress_programs(${S_NUMBER} ${S_NAME} "${S_SOURCES}" "${S_KERNELS}" "${S_EXERCISE_ROWS}")
  endif()
  set(labels "step${S_NUMBER}")
  if(S_GPU)
    list(APPEND labels gpu)
  endif()

  # Tests: written once, built against each variant.
  foreach(variant IN LISTS GEMV_VARIANTS)
    foreach(t IN LISTS S_TESTS)
      get_filename_component(tname "${t}" NAME_WE)
      set(exe "${tname}_${variant}")
      add_executable(${exe} "${PROJECT_SOURCE_DIR}/tests/${t}")
      target_link_libraries(${exe} PRIVATE step${S_NUMBER}_${variant}_kernels gemv_test_main)
      if(S_GPU)
        target_compile_definitions(${exe} PRIVATE GEMV_TEST_NEEDS_GPU=1)
      endif()
      # A failing test names the code under test, so a student knows where to look.
      if(variant STREQUAL "exercise")
        set(note "kernel under test: your exercise in exercises/${step}/ - fill in its TODO lines")
      else()
        set(note "kernel under test: the solution in solutions/${step}/")
      endif()
      target_compile_definitions(${exe} PRIVATE "GEMV_TEST_KERNEL_NOTE=\"${note}\"")
      set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests")
      add_test(NAME ${exe} COMMAND ${exe})
      set_tests_properties(${exe} PROPERTIES LABELS "${labels};${variant}" SKIP_RETURN_CODE 77)
      if(variant STREQUAL "exercise" AND GEMV_EXERCISES_EXPECT_FAIL)
        set_tests_properties(${exe} PROPERTIES WILL_FAIL TRUE)
      endif()
    endforeach()
  endforeach()

  # The contract of every step program: bad input is refused with a message and exit 2, and the
  # default run verifies (or is skipped with 77 where there is no GPU).
  gemv_add_program_tests(${program} "${labels};${program_variant}" "${S_BAD_ARGS}")

  if(NOT S_NO_LADDER)
    list(JOIN S_PRECISIONS "," precisions)
    set_property(GLOBAL APPEND PROPERTY GEMV_LADDER_STEPS
                 "${S_NUMBER}|${S_NAME}|$<TARGET_FILE:${program}>|${precisions}")
  endif()
  set_property(GLOBAL APPEND PROPERTY GEMV_STEP_PROGRAMS ${program})
endfunction()

# progress (cmake/progress.py) measures each GPU exercise that passes its test on the step's default
# problem, beside the solution: the solution's program is built in the exercises build where a GPU
# was seen when it was configured (nothing could run it elsewhere). GEMV_PROGRESS_SOLUTIONS=OFF or
# ON decides instead.
if(NOT DEFINED GEMV_PROGRESS_SOLUTIONS)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE gemv_smi_failed OUTPUT_QUIET ERROR_QUIET)
  set(gemv_saw_gpu OFF)
  if(gemv_smi_failed STREQUAL "0")
    set(gemv_saw_gpu ON)
  endif()
  option(GEMV_PROGRESS_SOLUTIONS "progress: build each GPU step's solution program beside the exercise's"
         ${gemv_saw_gpu})
endif()

# gemv_progress_programs(03 naive "main.cpp" "gemv_naive.cu" "<rows>"): what progress runs for a GPU
# step, entered in progress_programs.json (tests/ writes it): the step's program built from the
# exercise and the solution's. The solution's, stepNN_name_solution, is built in the exercises build
# only where solutions/ holds the solution of every file the exercise has (the students' release
# has none): the step's sources and the solution's versions of those files, linked ahead of the
# exercise's kernel library, so that the linker takes those files' objects from the program and the
# rest from the library, compiled once for both.
function(gemv_progress_programs number name sources kernels rows)
  if(NOT "exercise" IN_LIST GEMV_VARIANTS)
    return()
  endif()
  set(step "${number}_${name}")
  set(program "step${step}")
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${step}")
  # The exercise's files, and whether solutions/ has each one's answer.
  set(answers "")
  set(complete TRUE)
  foreach(k IN LISTS kernels)
    if("${step}/${k}" IN_LIST GEMV_GENERATED_EXERCISES)
      set(marked "")
      if(EXISTS "${solution_dir}/${k}")
        file(STRINGS "${solution_dir}/${k}" marked REGEX "BEGIN SOLUTION")
      endif()
      if(NOT marked)
        set(complete FALSE)
      endif()
      list(APPEND answers "${solution_dir}/${k}")
    endif()
  endforeach()
  if(NOT answers)
    return()  # nothing to fill in (step 00)
  endif()
  list(GET GEMV_VARIANTS 0 program_variant)
  set(exercise_program "")
  set(solution_program "")
  if(NOT program_variant STREQUAL "exercise")  # the maintainer build: the program is the solution's
    set(solution_program "$<TARGET_FILE:${program}>")
  elseif(GEMV_PROGRESS_SOLUTIONS AND complete)
    add_executable(${program}_solution ${sources} ${answers})
    target_include_directories(${program}_solution BEFORE PRIVATE "${solution_dir}")
    target_link_libraries(${program}_solution PRIVATE step${number}_exercise_kernels)
    set_target_properties(${program}_solution PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
    set(solution_program "$<TARGET_FILE:${program}_solution>")
  endif()
  if(program_variant STREQUAL "exercise")
    set(exercise_program "$<TARGET_FILE:${program}>")
  endif()
  set(entry "{}")
  string(JSON entry SET "${entry}" step "\"${number}\"")
  string(JSON entry SET "${entry}" name "\"${name}\"")
  string(JSON entry SET "${entry}" exercise "\"${exercise_program}\"")
  string(JSON entry SET "${entry}" solution "\"${solution_program}\"")
  set(list "[]")
  set(i 0)
  foreach(row IN LISTS rows)
    string(JSON list SET "${list}" ${i} "\"${row}\"")
    math(EXPR i "${i} + 1")
  endforeach()
  string(JSON entry SET "${entry}" exercise_rows "${list}")
  set_property(GLOBAL APPEND PROPERTY GEMV_PROGRESS_PROGRAMS "${entry}")
endfunction()

# gemv_split_case("m_zero|2|--m must be between|--m,0" name code regex args): the fields of a test
# case written a|b|c|..., into the variables named, in order.
function(gemv_split_case case)
  string(REPLACE "|" ";" parts "${case}")
  set(i 0)
  foreach(var IN LISTS ARGN)
    list(GET parts ${i} value)
    set(${var} "${value}" PARENT_SCOPE)
    math(EXPR i "${i} + 1")
  endforeach()
endfunction()

function(gemv_add_program_tests program labels bad_args)
  set(check "${PROJECT_SOURCE_DIR}/cmake/expect_exit.cmake")
  set(cases
      "m_zero|2|--m must be between|--m,0"
      "m_negative|2|--m must be between|--m,-5"
      "n_not_a_number|2|--n takes a whole number|--n,12abc"
      "unknown_option|2|unknown option|--bogus,1"
      "unknown_option_last|2|unknown option '--bogus'|--bogus"
      "missing_value|2|needs a value|--m"
      "bad_precision|2|--precision is .* here, not .half.|--precision,half"
      "bad_layout|2|--layout is row or col|--layout,diagonal"
      "bytes_overflow|2|overflows 64 bits|--m,5000000000,--n,5000000000"
      "help|0|usage: ${program}|--help")
  foreach(c IN LISTS bad_args)
    string(FIND "${c}" "|" bar)  # name|regex|args -> name|2|regex|args
    string(SUBSTRING "${c}" 0 ${bar} name)
    math(EXPR bar "${bar} + 1")
    string(SUBSTRING "${c}" ${bar} -1 rest)
    list(APPEND cases "${name}|2|${rest}")
  endforeach()
  # Bad input and --help are answered before the program asks for a GPU: exit 77 fails them.
  foreach(c IN LISTS cases)
    gemv_split_case("${c}" name code regex args)
    add_test(NAME ${program}_cli_${name}
             COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}> "-DARGS=${args}" -DEXPECT_CODE=${code}
                     -DBEFORE_DEVICE=1 "-DEXPECT_REGEX=${regex}" -P "${check}")
    set_tests_properties(${program}_cli_${name} PROPERTIES LABELS "${labels};cli")
  endforeach()
  # A small default-shaped run: verifies end to end, skipped (77) without a GPU.
  add_test(NAME ${program}_run COMMAND ${program} --m 300 --n 257 --reps 2 --warmup 1)
  set_tests_properties(${program}_run PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77)
endfunction()

# gemv_borrowed_solutions(<out_var> 11 12): the target with the solutions of earlier steps that a
# later step runs as they are (13 runs 01's and 02's loops, 14 and 15 step 11's kernel and step 12's
# cuBLAS handle). Where
# the solution libraries are built anyway it links them; otherwise (the exercises preset) it
# compiles their sources once, for every step that borrows them. A students' copy has no
# solutions: there it links the student's own exercises of those steps.
function(gemv_borrowed_solutions out_var)
  set(target "solutions")
  set(have_all TRUE)
  set(kind solution)
  if(GEMV_STUDENTS_COPY)
    set(target "exercises")
    set(kind exercise)
  endif()
  foreach(n IN LISTS ARGN)
    string(APPEND target "_${n}")
    if(NOT TARGET step${n}_${kind}_kernels)
      set(have_all FALSE)
    endif()
  endforeach()
  set(${out_var} ${target} PARENT_SCOPE)
  if(TARGET ${target})
    return()
  endif()
  if(have_all)
    add_library(${target} INTERFACE)
    foreach(n IN LISTS ARGN)
      target_link_libraries(${target} INTERFACE step${n}_${kind}_kernels)
    endforeach()
    return()
  endif()
  if(GEMV_STUDENTS_COPY)
    message(FATAL_ERROR "${target}: a step runs the kernels of steps ${ARGN}, which are not built here")
  endif()
  add_library(${target} STATIC)
  foreach(n IN LISTS ARGN)
    get_property(libs GLOBAL PROPERTY GEMV_STEP${n}_SOLUTION_LIBS)
    target_link_libraries(${target} PUBLIC ${libs})
    get_property(sources GLOBAL PROPERTY GEMV_STEP${n}_SOLUTION_SOURCES)
    target_sources(${target} PRIVATE ${sources})
    foreach(src IN LISTS sources)
      get_filename_component(dir "${src}" DIRECTORY)
      target_include_directories(${target} PUBLIC "${dir}")
    endforeach()
  endforeach()
  target_compile_definitions(${target} PRIVATE GEMV_TUNING_DIR="${PROJECT_SOURCE_DIR}/solutions/11_versatile/tuning")
endfunction()
