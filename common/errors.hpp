// The ways a program of the lab fails, and the exit codes it ends with: the bottom of the harness,
// which kernels, device code and the command line all include. run_step (cli.hpp) is the one place
// that turns each of them into its message and code.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>

namespace gemv {

// Exit codes: ctest treats 77 as skipped.
enum ExitCode : int { kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitWrong = 3, kExitNoDevice = 77 };

// Bad input (a value out of range, a shape a kernel cannot take, a problem too large for this
// machine): main prints "error: <what>", the usage, and exits with kExitUsage.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// No usable GPU: main prints "no CUDA device: <reason>" and exits with kExitNoDevice.
struct NoDevice : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A CUDA or cuBLAS call failed (check.hpp's checks throw it): main prints it, exit kExitError.
struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Refuses (UsageError: `message`) arrays that do not start on 16 bytes, for kernels that read them
// 16 bytes at a time counted from their start. cudaMalloc's memory always does.
inline void require_16_byte_aligned(std::initializer_list<const void*> arrays, const char* message) {
    for (const void* p : arrays)
        if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) throw UsageError(message);
}

}  // namespace gemv
