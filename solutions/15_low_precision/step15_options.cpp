#include "step15_options.hpp"

#include <string>

gemv::StepSpec step15_spec() {
    gemv::StepSpec spec;
    spec.number = "15";
    spec.name = "low_precision";
    spec.title = "A and x in bf16, fp16 or fp8, added up in float: half the bytes, half the time";
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.precisions = {gemv::Precision::bf16, gemv::Precision::f16, gemv::Precision::fp8};
    spec.options = {gemv::integer_option("block-size", "threads per block of the warp-per-row kernel (whole warps)",
                                         256, 32, 1024, 32),
                    gemv::text_option("table", "step 11's tuning table (default: this device's committed one)", "auto"),
                    gemv::choice_option("scales", "fp8 A's float scales: one, one a row, or one a block of 128 columns",
                                        "none", {"none", "tensor", "row", "block128"})};
    return spec;
}

gemv::Scales step15_scales(const gemv::Options& o) {
    using gemv::Scales;
    const std::string& text = o.text("scales");
    Scales mode = Scales::none;
    for (Scales s : {Scales::tensor, Scales::row, Scales::block128})
        if (text == to_string(s)) mode = s;
    if (mode == Scales::none) return mode;
    // Refused, not run: models store bf16 and fp16 weights as they are (bf16 has float's range, fp16's 65504 holds
    // trained weights); e4m3, with 4 bits and nothing above 448, is the format that needs scales. A scaled bf16 line
    // would time a product no model runs, beside no versatile or cuBLAS line to compare it with.
    if (o.precision != gemv::Precision::fp8)
        throw gemv::UsageError("--scales " + text + " is for fp8 weights: bf16 and fp16 weights are stored without " +
                               "scales (add --precision fp8)");
    // The kernels that honour scales read row-major A (models store W as [out, in], row-major): this step's warp
    // per row, and cuBLASLt, whose fp8 matmul takes A transposed only.
    if (o.shape.layout != gemv::Layout::row)
        throw gemv::UsageError("--scales " + text + " needs --layout row: the kernels here that take scales read " +
                               "row-major A");
    return mode;
}
