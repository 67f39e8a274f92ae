# What the lab needs beyond a compiler, CMake, Ninja and (for the GPU steps) the CUDA toolkit:
# Catch2 and Python 3, required (the tests, the exercise generator); OpenBLAS and Open MPI, used
# where present (step 02's OpenBLAS row, steps 13 and 14).
#
# What is missing comes from the distribution's packages. Where configure runs as root on Debian or
# Ubuntu (a CI runner, a lab image being built) it installs them itself with apt-get
# (-DGEMV_INSTALL_MISSING=OFF stops that); elsewhere it stops before anything is generated, with one
# message naming what to install. Where a network is reachable, -DGEMV_FETCH_CATCH2=ON instead
# fetches Catch2 the CMake way (FetchContent, which still takes an installed Catch2 first).

option(GEMV_INSTALL_MISSING "As root on Debian or Ubuntu: install missing packages with apt-get" ON)
option(GEMV_FETCH_CATCH2 "Without an installed Catch2: fetch and build Catch2 3 from GitHub (needs a network)" OFF)

# Looks for everything once; sets GEMV_MISSING_REQUIRED and GEMV_MISSING_OPTIONAL to the Debian and
# Ubuntu packages that would provide what is absent.
macro(gemv_look_for_dependencies)
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS QUIET)
  find_path(GEMV_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas openblas-pthread openblas-openmp)
  find_package(MPI QUIET COMPONENTS CXX)
  find_package(Python3 QUIET COMPONENTS Interpreter)
  # Catch2 3 where the system has it (Ubuntu 24.04), 2.13 where it does not (Debian 12).
  find_package(Catch2 3 QUIET)
  if(NOT Catch2_FOUND)
    find_package(Catch2 2.13 QUIET)
  endif()
  set(GEMV_MISSING_REQUIRED "")
  set(GEMV_MISSING_OPTIONAL "")
  if(NOT Catch2_FOUND AND NOT GEMV_FETCH_CATCH2)
    list(APPEND GEMV_MISSING_REQUIRED catch2)
  endif()
  if(NOT Python3_Interpreter_FOUND)
    list(APPEND GEMV_MISSING_REQUIRED python3)
  endif()
  if(NOT (BLAS_FOUND AND GEMV_CBLAS_INCLUDE_DIR))
    list(APPEND GEMV_MISSING_OPTIONAL libopenblas-dev)
  endif()
  if(NOT MPI_CXX_FOUND)
    list(APPEND GEMV_MISSING_OPTIONAL openmpi-bin libopenmpi-dev)
  endif()
endmacro()

macro(gemv_find_dependencies)
  gemv_look_for_dependencies()
  set(missing ${GEMV_MISSING_REQUIRED} ${GEMV_MISSING_OPTIONAL})
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  find_program(GEMV_APT_GET apt-get)
  # Optional packages once per build folder: a machine that cannot fetch them is not asked again at
  # every reconfigure (a required one is asked for until it is there).
  if(missing AND uid STREQUAL "0" AND GEMV_APT_GET AND GEMV_INSTALL_MISSING
     AND (GEMV_MISSING_REQUIRED OR NOT "${missing}" STREQUAL "${GEMV_INSTALL_TRIED}"))
    set(GEMV_INSTALL_TRIED "${missing}" CACHE INTERNAL "What configure last asked apt-get to install")
    string(REPLACE ";" " " list "${missing}")
    message(STATUS "Installing from the distribution's packages (as root; -DGEMV_INSTALL_MISSING=OFF stops this): "
                   "${list}")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env DEBIAN_FRONTEND=noninteractive ${GEMV_APT_GET} update -q
                    RESULT_VARIABLE failed)
    if(NOT failed)
      execute_process(COMMAND ${CMAKE_COMMAND} -E env DEBIAN_FRONTEND=noninteractive ${GEMV_APT_GET} install -y -q
                              --no-install-recommends ${missing}
                      RESULT_VARIABLE failed)
    endif()
    if(failed)
      message(WARNING "apt-get could not install ${list}")
    endif()
    gemv_look_for_dependencies()
  endif()

  string(REPLACE ";" " " required "${GEMV_MISSING_REQUIRED}")
  string(REPLACE ";" " " optional "${GEMV_MISSING_OPTIONAL}")
  set(apt "apt-get install")
  if(NOT uid STREQUAL "0")
    set(apt "sudo apt-get install")
  endif()
  if(GEMV_MISSING_REQUIRED)
    if(GEMV_APT_GET)
      string(CONCAT text "The GEMV lab needs packages this machine does not have. Install them, then run the same "
                         "command again:\n    ${apt} ${required}\n")
      if(optional)
        string(APPEND text "and, for step 02's OpenBLAS row and the MPI steps 13 and 14 (optional):\n"
                           "    ${apt} ${optional}\n")
      endif()
      string(APPEND text "Run as root, configure installs them itself.")
    else()
      string(CONCAT text "The GEMV lab needs what this machine does not have: ${required} (Debian's names; Catch2 "
                         "3.x or 2.13, and Python 3). Install them from your distribution's packages, then run the "
                         "same command again.")
    endif()
    if(NOT Catch2_FOUND)
      string(APPEND text " Where a network is reachable, -DGEMV_FETCH_CATCH2=ON fetches and builds Catch2 instead.")
    endif()
    message(FATAL_ERROR "${text} Nothing has been built.")
  endif()
  if(GEMV_MISSING_OPTIONAL)
    message(STATUS "Optional and absent (step 02's OpenBLAS row, the MPI steps 13 and 14): ${apt} ${optional}")
  endif()

  if(BLAS_FOUND AND GEMV_CBLAS_INCLUDE_DIR)
    set(GEMV_HAVE_OPENBLAS ON)
    message(STATUS "OpenBLAS: ${BLAS_LIBRARIES} (cblas.h in ${GEMV_CBLAS_INCLUDE_DIR})")
  else()
    set(GEMV_HAVE_OPENBLAS OFF)
    message(STATUS "OpenBLAS: not found; step 02 runs without its OpenBLAS row")
  endif()
  if(MPI_CXX_FOUND)
    message(STATUS "MPI: ${MPI_CXX_COMPILER} (MPI ${MPI_CXX_VERSION})")
  else()
    message(STATUS "MPI: not found; the MPI steps are not built")
  endif()
  if(Catch2_FOUND)
    string(REGEX MATCH "^[0-9]+" GEMV_CATCH2_MAJOR "${Catch2_VERSION}")
    message(STATUS "Catch2: ${Catch2_VERSION}")
  else()
    include(FetchContent)
    FetchContent_Declare(Catch2 GIT_REPOSITORY https://github.com/catchorg/Catch2.git GIT_TAG v3.4.0 GIT_SHALLOW TRUE
                         FIND_PACKAGE_ARGS 3)
    FetchContent_MakeAvailable(Catch2)
    set(GEMV_CATCH2_MAJOR 3)
    message(STATUS "Catch2: 3.4.0, fetched and built with the lab")
  endif()
endmacro()
