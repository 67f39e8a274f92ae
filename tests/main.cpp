// The main of every test program, compiled into each: GPU test programs (GEMV_TEST_NEEDS_GPU)
// exit 77, which ctest reports as skipped, where there is no device, never as passed; MPI test
// programs (GEMV_TEST_NEEDS_MPI) run between MPI_Init and MPI_Finalize.
#include <cstdio>

#if GEMV_TEST_NEEDS_GPU
#include <cuda_runtime.h>
#endif
#if GEMV_TEST_NEEDS_MPI
#include <mpi.h>
#endif

namespace gemv_test {
int run_catch(int argc, char* argv[]);
}

int main(int argc, char* argv[]) {
#if GEMV_TEST_NEEDS_GPU
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        std::printf("no CUDA device: %s\n", err != cudaSuccess ? cudaGetErrorString(err) : "none found");
        return 77;
    }
#endif
#if GEMV_TEST_NEEDS_MPI
    // MPI test programs (GEMV_TEST_NEEDS_MPI) run under mpiexec or alone: every rank runs every test
    // case in the same order, so the collectives inside them meet.
    MPI_Init(&argc, &argv);
    const int code = gemv_test::run_catch(argc, argv);
    MPI_Finalize();
    return code;
#else
    return gemv_test::run_catch(argc, argv);
#endif
}
