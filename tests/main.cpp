// The main of every test program, compiled into each: GPU test programs (GEMV_TEST_NEEDS_GPU)
// exit 77, which ctest reports as skipped, where there is no device, never as passed; MPI test
// programs (GEMV_TEST_NEEDS_MPI) run between MPI_Init and MPI_Finalize.
#include <cstdio>

#if GEMV_TEST_NEEDS_GPU
#include <string>

#include "device.hpp"
#endif
#if GEMV_TEST_NEEDS_MPI
#include <mpi.h>
#endif

namespace gemv_test {
int run_catch(int argc, char* argv[]);
}

#if GEMV_TEST_NEEDS_MPI
#include <vector>

// Every rank must run the test cases in the same order, or their collectives would not meet:
// Catch2 3 shuffles test cases by default, with a seed of each process's own. Declaration order
// first; an --order given on the command line still comes later and wins.
static int run_catch_in_declared_order(int argc, char* argv[]) {
    static char order[] = "--order", declared[] = "decl";
    std::vector<char*> args(argv, argv + argc);
    args.insert(args.begin() + (argc > 0 ? 1 : 0), {order, declared});
    args.push_back(nullptr);
    return gemv_test::run_catch(static_cast<int>(args.size()) - 1, args.data());
}
#endif

int main(int argc, char* argv[]) {
#if GEMV_TEST_NEEDS_GPU && GEMV_TEST_NEEDS_MPI
    // MPI and GPU test programs (step 14): every rank skips where any rank has no device, agreed
    // after MPI_Init, so that no rank waits alone in a collective and mpiexec ends with 77.
    MPI_Init(&argc, &argv);
    std::string why_none;
    int here = gemv::cuda_device_count(why_none) > 0 ? 1 : 0, everywhere = 0;
    MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int code = 77;
    if (everywhere)
        code = run_catch_in_declared_order(argc, argv);
    else if (!here)
        std::printf("no CUDA device: %s\n", why_none.c_str());
    else
        std::printf("no CUDA device on another rank: skipped on every rank\n");
    MPI_Finalize();
    return code;
#else
#if GEMV_TEST_NEEDS_GPU
    std::string why_none;
    if (gemv::cuda_device_count(why_none) == 0) {
        std::printf("no CUDA device: %s\n", why_none.c_str());
        return 77;
    }
#endif
#if GEMV_TEST_NEEDS_MPI
    // MPI test programs (GEMV_TEST_NEEDS_MPI) run under mpiexec or alone: every rank runs every test
    // case in the same order, so the collectives inside them meet.
    MPI_Init(&argc, &argv);
    const int code = run_catch_in_declared_order(argc, argv);
    MPI_Finalize();
    return code;
#else
    return gemv_test::run_catch(argc, argv);
#endif
#endif
}
