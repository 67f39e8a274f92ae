# Chooses CMAKE_CUDA_ARCHITECTURES before the CUDA language is enabled.
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
endif()
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()  # the user's choice stands
endif()
execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                OUTPUT_VARIABLE gemv_caps RESULT_VARIABLE gemv_smi_failed ERROR_QUIET
                OUTPUT_STRIP_TRAILING_WHITESPACE)
# Compute capability 9.0 is built as 90a, Hopper's own instructions included (step 17's wgmma and
# copy engine); without a GPU, 90a's code and 90's PTX (which later GPUs compile at load time).
if(NOT gemv_smi_failed AND gemv_caps MATCHES "^([0-9]+)\\.([0-9]+)")
  set(gemv_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
  if(gemv_arch STREQUAL "90")
    set(gemv_arch "90a")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${gemv_arch}" CACHE STRING "CUDA architectures")
  message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (the local GPU)")
else()
  set(CMAKE_CUDA_ARCHITECTURES "80;90a-real;90-virtual" CACHE STRING "CUDA architectures")
  message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (no GPU found; set CUDAARCHS to choose)")
endif()
