# The lab's CMake vocabulary: how a step, its kernels, its exercise and its tests are built.

# The files of exercises/ that the generator wrote, from its manifest: only the files a student fills
# in. Every other source and header of an exercise is the solution's own, built from solutions/.
set(gemv_manifest "${CMAKE_CURRENT_LIST_DIR}/../exercises/generated.sha256")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${gemv_manifest}")
file(STRINGS "${gemv_manifest}" gemv_manifest_lines)
set(GEMV_GENERATED_EXERCISES "")
foreach(line IN LISTS gemv_manifest_lines)
  string(REGEX REPLACE "^[0-9a-f]+  " "" file "${line}")
  list(APPEND GEMV_GENERATED_EXERCISES "${file}")
endforeach()

# gemv_add_step(NUMBER 03 NAME naive [GPU] SOURCES main.cpp KERNELS gemv_naive.cu
#               [TESTS test_step03_naive.cpp] [LIBS ...] [RUNS_KERNELS_OF 11 12] [NEEDS_MPI] [NO_LADDER]
#               [PRECISIONS bf16 fp16 fp8] [BAD_ARGS "name|message regex|--option,value" ...]
#               [EXERCISE_ROWS "warp per row" ...])
#
# Builds, from steps/NN_name/, the program stepNN_name; from solutions/NN_name/ and
# exercises/NN_name/, the kernel library of each variant in GEMV_VARIANTS (gemv_step_kernels); from
# tests/, one test program per variant labelled stepNN, solution|exercise and gpu. Registers the step
# for the ladder and, a GPU step, for progress's figures (gemv_progress_programs).
# RUNS_KERNELS_OF: earlier steps whose kernels this step runs as they are, beside its own (14 runs
# step 11's kernel and step 12's cuBLAS call): their solution's kernels (gemv_solution_kernels).
# PRECISIONS: those the step takes, where not float and double (the ladder runs it in the first).
# BAD_ARGS: the step's own options out of range, each refused with exit 2 and the message.
# EXERCISE_ROWS: the rows of the program's report (their variant, or its start) that run the
# exercise's code, where others run borrowed kernels (cuBLAS beside it, say); default every row.
function(gemv_add_step)
  cmake_parse_arguments(S "GPU;NEEDS_MPI;NO_LADDER" "NUMBER;NAME"
                        "SOURCES;KERNELS;TESTS;LIBS;RUNS_KERNELS_OF;BAD_ARGS;PRECISIONS;EXERCISE_ROWS" ${ARGN})
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
  set(libs gemv_common)
  if(S_GPU)
    set(libs gemv_common_cuda)
  endif()
  gemv_solution_kernels(borrowed ${S_RUNS_KERNELS_OF})
  list(APPEND libs ${S_LIBS} ${borrowed})
  gemv_step_kernels(${S_NUMBER} ${S_NAME} "${S_KERNELS}" "${libs}" generated)

  list(GET GEMV_VARIANTS 0 program_variant)
  add_executable(${program} ${S_SOURCES})
  target_link_libraries(${program} PRIVATE step${S_NUMBER}_${program_variant}_kernels)
  set_target_properties(${program} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
  if(S_GPU)
    gemv_progress_programs(${S_NUMBER} ${S_NAME} "${S_SOURCES}" "${generated}" "${S_EXERCISE_ROWS}")
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

# gemv_step_kernels(11 versatile "<KERNELS>" "<libs>" <out_var>): the kernel libraries of a step.
# Its KERNELS are of two kinds: the files the exercise generator writes for a student
# (GEMV_GENERATED_EXERCISES; their names into <out_var>), and the rest, the solution's own in every
# variant (host code, kernels with nothing to fill in). The rest compile once, into the object
# library stepNN_shared_kernels; stepNN_<variant>_kernels holds the variant's own versions of the
# generated files (exercises/NN_name/ or solutions/NN_name/) and those objects, and carries <libs>.
# The solution's library is declared wherever solutions/ has the answers, even where the build's
# variant is the exercise: there it is built only for what links it (gemv_solution_kernels,
# gemv_progress_programs). A students' copy has no answers: no solution library.
function(gemv_step_kernels number name kernels libs out_var)
  set(step "${number}_${name}")
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${step}")
  set(generated "")
  set(shared "")
  foreach(k IN LISTS kernels)
    if("${step}/${k}" IN_LIST GEMV_GENERATED_EXERCISES)
      list(APPEND generated "${k}")
    else()
      list(APPEND shared "${solution_dir}/${k}")
    endif()
  endforeach()
  set(${out_var} "${generated}" PARENT_SCOPE)
  if(shared)
    add_library(step${number}_shared_kernels OBJECT ${shared})
    target_include_directories(step${number}_shared_kernels PUBLIC "${solution_dir}")
    target_link_libraries(step${number}_shared_kernels PUBLIC ${libs})
    set(libs step${number}_shared_kernels)  # linked by a static library: its objects are archived there
  endif()
  set(variants ${GEMV_VARIANTS})
  if(NOT GEMV_STUDENTS_COPY AND NOT "solution" IN_LIST variants)
    list(APPEND variants solution)
  endif()
  foreach(variant IN LISTS variants)
    set(lib "step${number}_${variant}_kernels")
    if(NOT kernels)  # a step with nothing of its own to run (00): the harness alone
      add_library(${lib} INTERFACE)
      target_link_libraries(${lib} INTERFACE ${libs})
      continue()
    endif()
    set(dir "${PROJECT_SOURCE_DIR}/${variant}s/${step}")
    set(srcs "")
    foreach(k IN LISTS generated)
      if(variant STREQUAL "exercise" AND NOT EXISTS "${dir}/${k}")
        message(FATAL_ERROR "exercises/${step}/${k} is missing: python3 cmake/generate_exercises.py --step "
                            "${number} writes it again")
      endif()
      list(APPEND srcs "${dir}/${k}")
    endforeach()
    add_library(${lib} STATIC ${srcs})
    if(NOT variant IN_LIST GEMV_VARIANTS)
      set_target_properties(${lib} PROPERTIES EXCLUDE_FROM_ALL TRUE)
    endif()
    target_include_directories(${lib} PUBLIC "${dir}" "${solution_dir}")
    target_link_libraries(${lib} PUBLIC ${libs})
    if(variant STREQUAL "exercise")
      # A generated file in a subfolder sees the headers beside its solution, as the solution does.
      foreach(k IN LISTS generated)
        get_filename_component(sub "${k}" DIRECTORY)
        if(sub)
          target_include_directories(${lib} PRIVATE "${solution_dir}/${sub}")
        endif()
      endforeach()
      # An untouched exercise declares what the code a student writes will use (the indices of
      # the element a thread owns, say): warnings that those are unused would bury the real ones.
      target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=177>
                                            $<$<COMPILE_LANGUAGE:CXX>:-Wno-unused-variable>)
    endif()
  endforeach()
endfunction()

# gemv_solution_kernels(<out_var> 11 12): the kernel libraries of earlier steps that a later step
# runs as they are (13 runs 01's and 02's loops, 14 and 15 step 11's kernel and step 12's cuBLAS
# handle): their solutions' stepNN_solution_kernels, in every build of the lab; in a students' copy,
# which has no solutions, the student's own stepNN_exercise_kernels.
function(gemv_solution_kernels out_var)
  set(kind solution)
  if(GEMV_STUDENTS_COPY)
    set(kind exercise)
  endif()
  set(libs "")
  foreach(n IN LISTS ARGN)
    if(NOT TARGET step${n}_${kind}_kernels)
      message(FATAL_ERROR "a step runs the kernels of step ${n}, which is not built here")
    endif()
    list(APPEND libs step${n}_${kind}_kernels)
  endforeach()
  set(${out_var} ${libs} PARENT_SCOPE)
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

# gemv_progress_programs(03 naive "main.cpp" "<generated>" "<rows>"): what progress runs for a GPU
# step with an exercise (<generated>: the files the generator writes), entered in
# progress_programs.json (tests/ writes it): the step's program built from the exercise and the
# solution's. The solution's, stepNN_name_solution, is built in the exercises build where solutions/
# has the answers (the students' copy has none): the step's sources linked to the solution's kernel
# library, the one a later step that runs this step's kernels links too (gemv_step_kernels).
function(gemv_progress_programs number name sources generated rows)
  if(NOT "exercise" IN_LIST GEMV_VARIANTS OR NOT generated)
    return()  # no exercise here, or nothing to fill in (step 00)
  endif()
  set(program "step${number}_${name}")
  list(GET GEMV_VARIANTS 0 program_variant)
  set(exercise_program "")
  set(solution_program "")
  if(NOT program_variant STREQUAL "exercise")  # the maintainer build: the program is the solution's
    set(solution_program "$<TARGET_FILE:${program}>")
  elseif(GEMV_PROGRESS_SOLUTIONS AND TARGET step${number}_solution_kernels)
    add_executable(${program}_solution ${sources})
    target_link_libraries(${program}_solution PRIVATE step${number}_solution_kernels)
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
