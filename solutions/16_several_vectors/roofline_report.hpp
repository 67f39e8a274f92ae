// The programs' reports of steps 16 and 17, the part they share: the command line, the rows of the
// table (each kernel and cuBLAS's gemm with its share of the roofline of its units) and the lines
// below it. Each step's main keeps only its own kernels (and step 17 the chooser's pick). Host code.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "device.hpp"
#include "gpu_step.hpp"
#include "result.hpp"
#include "several_vectors.hpp"

namespace gemv::several {

// The step's command line: float or bf16, both layouts, and --k (1 … kMaxVectors vectors).
gemv::StepSpec step_spec(const std::string& number, const std::string& name, const std::string& title);

// The clock cudaDevAttrClockRate reports (kHz), from which the compute peaks are computed, and the
// FP32 FMA peak of this GPU (fma_peak_gflops).
int clock_khz_of(const gemv::DeviceFacts& f);
double fma_peak_of(const gemv::DeviceFacts& f);

// A row's roofline columns: k, the model's intensity, the memory roof, the compute peak of the
// units it computes on (`units`; an infinite peak shows as "-": the memory roof alone), the roof
// and the row's share of it.
gemv::Fields roofline_fields(const gemv::Result& r, double intensity, double peak, const std::string& units);

// Below the table: the roofline at the results' k, with the FP32 FMA peak and its ridge point (and
// the bf16 tensor-core peak where one is given), and each row's share of its roof.
void print_roofline(std::ostream& out, const std::vector<gemv::Result>& results, double fma_peak,
                    double tensor_peak = 0);

// One row of the table before it runs: a kernel with its plan, or cuBLAS's gemm.
struct Variant {
    std::string name;
    gemv::Launch launch;  // kernel == nullptr for the library call
    gemv::Traffic traffic;
    std::function<void(cudaStream_t)> run;
    std::string note;
    bool tensor_cores = false;  // held to the bf16 tensor cores' roof (else FP32 FMA's)
    bool chosen = false;        // step 17: the chooser's pick
};

// A plan in words: the vectors its thread, warp or block keeps, the reads of A, the slices.
std::string plan_text(const Plan& p);

// cuBLAS's gemm on the problem (cublasSgemm in float, cublasGemmEx in bf16: on the tensor cores).
template <class T>
Variant cublas_variant(const T* A, const T* X, float* Y, std::int64_t m, std::int64_t n, int k, gemv::Layout layout);

// The compute roofs a step holds its rows to: FP32 FMA and the bf16 tensor cores (`tensor_units`
// names them in the report).
struct Roofs {
    double fma, tensor;
    std::string tensor_units;
};

// The table's rows, each with the roofline of its units. Where `why` is given (step 17's chooser),
// the chosen row is marked in its name and note, and every row has a "chosen" column.
std::vector<gemv::GpuKernel> roofline_rows(const std::vector<Variant>& variants, double intensity, const Roofs& roofs,
                                           const std::string* why = nullptr);

}  // namespace gemv::several
