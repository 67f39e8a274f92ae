#pragma once

#include "cli.hpp"
#include "scales.hpp"

// Step 15's command line, read on the host before any device is asked for: its spec (formats, layouts, its own
// options), and --scales none|tensor|row|block128, fp8 weights as models store them (scales.hpp).

gemv::StepSpec step15_spec();

// The mode of --scales. Refused (UsageError, exit 2) for bf16 and fp16, and for column-major A.
gemv::Scales step15_scales(const gemv::Options& o);
