// The roofline in the programs' reports (steps 16 and 17): each row's roof and share of it, and
// the lines below the table. Host code.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "device.hpp"
#include "result.hpp"

namespace several {

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

}  // namespace several
